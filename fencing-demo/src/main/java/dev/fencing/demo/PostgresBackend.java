package dev.fencing.demo;

import dev.fencing.FencedQueue;
import dev.fencing.FencedReceiver;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.testkit.process.FencingBackend;
import dev.fencing.testkit.property.ValidLeaseCount;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import javax.sql.DataSource;

/**
 * The real thing: the PostgreSQL queue and the PostgreSQL receiver, as a user would build them. It
 * counts a queue's valid leases the way its engine (the default, append-only one) judges them, for
 * the running limit's property suite.
 */
public class PostgresBackend implements FencingBackend, ValidLeaseCount {

  /**
   * The jobs of a queue whose leases are valid at {@code clock_timestamp()} on the append-only
   * engine, as its compare-and-set judges a lease (without the owner): the job is in a claim row
   * that is live, whose lease has not run out and that did not give it back, and the job has no
   * end. Counted from the claim rows, not from the limit's slots, so that a claim that skipped the
   * slots is counted too.
   */
  private static final String APPEND_ONLY_VALID =
      "select count(distinct x.job_id) from %1$s.fencing_append_claim c"
          + " cross join unnest(c.job_ids) as x(job_id)"
          + " where c.queue = ? and c.live and c.lease_expires_at > clock_timestamp()"
          + " and not (x.job_id = any(c.given_back))"
          + " and not exists (select 1 from %1$s.fencing_append_done d where d.job_id = x.job_id)";

  @Override
  public FencedQueue queue(DataSource dataSource, String schema) {
    return PostgresFencing.builder(dataSource).schema(schema).build().queue();
  }

  @Override
  public FencedReceiver receiver(DataSource dataSource, String schema) {
    return PostgresFencing.builder(dataSource).schema(schema).build().receiver("default");
  }

  @Override
  public long validLeases(Connection connection, String schema, String queue) throws SQLException {
    return count(connection, APPEND_ONLY_VALID, schema, queue);
  }

  /** Runs a count whose {@code %1$s} is the quoted schema and whose one parameter the queue. */
  static long count(Connection connection, String sql, String schema, String queue)
      throws SQLException {
    try (PreparedStatement s = connection.prepareStatement(sql.formatted("\"" + schema + "\""))) {
      s.setString(1, queue);
      try (ResultSet r = s.executeQuery()) {
        r.next();
        return r.getLong(1);
      }
    }
  }
}
