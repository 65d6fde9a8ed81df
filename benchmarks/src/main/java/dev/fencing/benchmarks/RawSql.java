package dev.fencing.benchmarks;

import dev.fencing.internal.Validate;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/**
 * The limit: the library's protocol (claim bumping the epoch; owner+epoch compare-and-set on
 * completion) as hand-written SQL through plain JDBC, with no library code in the way.
 */
final class RawSql {

  /** A claimed job: its id, and the epoch its completion must match. */
  record Claimed(long id, long epoch) {}

  private final DataSource ds;
  private final String claim;
  private final String complete;
  private final String completeAll;

  RawSql(DataSource ds, String schema) {
    this.ds = ds;
    String t = "\"" + Validate.identifier("schema", schema) + "\".fencing_job";
    this.claim =
        "with expired as (select id from "
            + t
            + " where queue = ? and status = 'running' and lease_expires_at <= now()"
            + " order by lease_expires_at limit ? for update skip locked),"
            + " pending as (select id from "
            + t
            + " where queue = ? and status = 'pending' and run_at <= now() order by run_at, id"
            + " limit (? - (select count(*) from expired)) for update skip locked)"
            + " update "
            + t
            + " set status = 'running', owner = ?, epoch = epoch + 1, attempts = attempts + 1,"
            + " lease_expires_at = now() + interval '30 seconds', last_event = 'claimed',"
            + " updated_at = now()"
            + " where id in (select id from expired union all select id from pending)"
            + " returning id, epoch";
    String finish =
        "status = 'completed', lease_expires_at = null, finished_at = now(),"
            + " last_event = 'completed', updated_at = now()";
    this.complete =
        "update "
            + t
            + " set result = ?::jsonb, "
            + finish
            + " where id = ? and owner = ? and epoch = ? and status = 'running'"
            + " and lease_expires_at > now()";
    this.completeAll =
        "update "
            + t
            + " j set result = v.r, "
            + finish
            + " from unnest(?::bigint[], ?::bigint[], ?::jsonb[]) as v(i, e, r)"
            + " where j.id = v.i and j.owner = ? and j.epoch = v.e and j.status = 'running'"
            + " and j.lease_expires_at > now()";
  }

  List<Claimed> claim(String queue, String owner, int batchSize) throws SQLException {
    try (Connection c = ds.getConnection();
        PreparedStatement s = c.prepareStatement(claim)) {
      s.setString(1, queue);
      s.setInt(2, batchSize);
      s.setString(3, queue);
      s.setInt(4, batchSize);
      s.setString(5, owner);
      List<Claimed> jobs = new ArrayList<>(batchSize);
      try (ResultSet r = s.executeQuery()) {
        while (r.next()) {
          jobs.add(new Claimed(r.getLong(1), r.getLong(2)));
        }
      }
      return jobs;
    }
  }

  /** Completes each job with result {@code {}}; returns how many compare-and-sets took. */
  int complete(String owner, List<Claimed> jobs) throws SQLException {
    if (jobs.isEmpty()) {
      return 0;
    }
    try (Connection c = ds.getConnection()) {
      if (jobs.size() == 1) {
        try (PreparedStatement s = c.prepareStatement(complete)) {
          s.setString(1, "{}");
          s.setLong(2, jobs.getFirst().id());
          s.setString(3, owner);
          s.setLong(4, jobs.getFirst().epoch());
          return s.executeUpdate();
        }
      }
      Long[] ids = new Long[jobs.size()];
      Long[] epochs = new Long[jobs.size()];
      String[] results = new String[jobs.size()];
      for (int i = 0; i < ids.length; i++) {
        ids[i] = jobs.get(i).id();
        epochs[i] = jobs.get(i).epoch();
        results[i] = "{}";
      }
      try (PreparedStatement s = c.prepareStatement(completeAll)) {
        Array idArray = c.createArrayOf("bigint", ids);
        Array epochArray = c.createArrayOf("bigint", epochs);
        Array resultArray = c.createArrayOf("jsonb", results);
        s.setArray(1, idArray);
        s.setArray(2, epochArray);
        s.setArray(3, resultArray);
        s.setString(4, owner);
        return s.executeUpdate();
      }
    }
  }
}
