package dev.fencing.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.FencedQueue;
import dev.fencing.Job;
import dev.fencing.Lease;
import dev.fencing.Renewal;
import dev.fencing.testkit.db.FencingDatabase;
import dev.fencing.testkit.db.TestSchema;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A worker started on a fresh table fell behind for a minute: the driver had turned the claim into
 * a named statement after five executions, PostgreSQL cached a generic plan for it while the table
 * was nearly empty, and that plan joined the batch to a sequential scan of the whole table on every
 * claim until the first analyze replaced it (234 ms a claim at 46,000 rows; docs/BENCHMARKS.md).
 * The batched commit and renewal join the table the same way. All three are now cached on purpose
 * (planning them at every execution cost more server time than running them), planned with
 * sequential scans priced out: plans cached on a nearly empty table must still reach the rows
 * through indexes once it has grown, before any analyze. Fails when the three are cached as plain
 * named statements. About the update-in-place engine's statements on {@code fencing_job}; the
 * append-only engine plans its own the same way, and {@link AppendOnlyWindowScanTest} counts what
 * its claim reads.
 */
@FencingDatabase
class PlanCachedWhileTheTableWasEmptyTest {

  private static final Duration LONG = Duration.ofMinutes(5);

  @Test
  void plansCachedOnAnEmptyTableStillUseIndexesOnceItHasGrown(TestSchema schema) throws Exception {
    try (OneConnection one = new OneConnection(schema.dataSource(), true)) {
      FencedQueue queue =
          PostgresFencing.builder(one.dataSource())
              .schema(schema.name())
              // the claim, batched commit and renewal on fencing_job are this engine's
              .engine(PostgresFencing.Engine.UPDATE_IN_PLACE)
              .build()
              .queue();
      sql(
          one.connection(),
          "alter table \"" + schema.name() + "\".fencing_job set (autovacuum_enabled = false)");
      // on a nearly empty table: every statement runs often enough to be cached
      for (int i = 0; i < 10; i++) {
        assertThat(queue.claimBatch("q", "w1", LONG, 10)).isEmpty();
      }
      queue.enqueueAll("q", Collections.nCopies(40, "{}"));
      for (int i = 0; i < 10; i++) {
        // two at a time: a batch of one takes the single-row statements
        List<Lease> leases = renewed(queue, queue.claimBatch("q", "w1", LONG, 2));
        queue.completeAll(
            leases.stream().map(lease -> new FencedQueue.Completion(lease, "{}")).toList());
      }
      assertThat(prepared(one.connection(), "true"))
          .as("statements prepared on the server: the claim, the batched commit, the renewal")
          .anyMatch(sql -> sql.contains("skip locked"))
          .anyMatch(sql -> sql.contains("unnest") && sql.contains("'completed'"))
          .anyMatch(sql -> sql.contains("unnest") && sql.contains("lease_expires_at"));
      assertThat(prepared(one.connection(), "generic_plans > 0"))
          .as("statements whose generic plan the server chose")
          .anyMatch(sql -> sql.contains("skip locked"));

      // the table grows; no analyze runs, so the cached plans stay
      queue.enqueueAll("q", Collections.nCopies(10_000, "{}"));
      queue.enqueueAll("q", Collections.nCopies(10_000, "{}"));
      long before = sequentialScans(one.connection(), schema.name());
      List<FencedQueue.Completion> done = new ArrayList<>();
      for (int i = 0; i < 10; i++) {
        for (Lease lease : renewed(queue, queue.claimBatch("q", "w1", LONG, 5))) {
          done.add(new FencedQueue.Completion(lease, "{}"));
        }
      }
      assertThat(queue.completeAll(done)).hasSize(50);
      assertThat(sequentialScans(one.connection(), schema.name()) - before)
          .as("sequential scans of fencing_job by claims, renewals and commits on the grown table")
          .isZero();
      assertThat(setting(one.connection()))
          .as("enable_seqscan on the connection afterwards")
          .isEqualTo("on");
    }
  }

  private static List<Lease> renewed(FencedQueue queue, List<Job> jobs) {
    List<Lease> leases = new ArrayList<>();
    for (Renewal renewal : queue.renewAll(jobs.stream().map(Job::lease).toList(), LONG)) {
      leases.add(((Renewal.Renewed) renewal).lease());
    }
    return leases;
  }

  private static List<String> prepared(Connection c, String condition) throws Exception {
    List<String> found = new ArrayList<>();
    try (Statement s = c.createStatement();
        ResultSet r =
            s.executeQuery("select statement from pg_prepared_statements where " + condition)) {
      while (r.next()) {
        found.add(r.getString(1));
      }
    }
    return found;
  }

  /** The table's sequential scans, with this connection's own counts flushed first. */
  private static long sequentialScans(Connection c, String schema) throws Exception {
    sql(c, "select pg_stat_force_next_flush()");
    sql(c, "select 1");
    try (PreparedStatement s =
        c.prepareStatement(
            "select seq_scan from pg_stat_user_tables where schemaname = ? and relname ="
                + " 'fencing_job'")) {
      s.setString(1, schema);
      try (ResultSet r = s.executeQuery()) {
        r.next();
        return r.getLong(1);
      }
    }
  }

  private static String setting(Connection c) throws Exception {
    try (Statement s = c.createStatement();
        ResultSet r = s.executeQuery("show enable_seqscan")) {
      r.next();
      return r.getString(1);
    }
  }

  private static void sql(Connection c, String sql) throws Exception {
    try (Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }
}
