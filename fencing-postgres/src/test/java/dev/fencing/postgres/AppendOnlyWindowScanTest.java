package dev.fencing.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.FencedQueue;
import dev.fencing.Job;
import dev.fencing.testkit.db.FencingDatabase;
import dev.fencing.testkit.db.TestSchema;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A claim on the append-only engine reads only the recent end of the queue's window index, however
 * many jobs the queue has processed: the jobs of earlier windows (kept until retention removes
 * them, then dead entries until a VACUUM) are not read again. Measured in index blocks read by the
 * claim, from PostgreSQL's statistics, on one connection (so the claim's backend is the one that
 * flushes them).
 */
@FencingDatabase
class AppendOnlyWindowScanTest {

  private static final Duration LONG = Duration.ofMinutes(5);

  @Test
  void aClaimAfterManyProcessedJobsReadsOnlyTheNewestEntriesOfTheWindowIndex(TestSchema schema)
      throws Exception {
    try (OneConnection one = new OneConnection(schema.dataSource(), true)) {
      FencedQueue queue =
          PostgresFencing.builder(one.dataSource())
              .schema(schema.name())
              .engine(PostgresFencing.Engine.APPEND_ONLY)
              .build()
              .queue();
      queue.enqueueAll("q", Collections.nCopies(20_000, "{}"));
      for (List<Job> jobs = queue.claimBatch("q", "w", LONG, 1_000);
          !jobs.isEmpty();
          jobs = queue.claimBatch("q", "w", LONG, 1_000)) {
        queue.completeAll(
            jobs.stream()
                .map(j -> new FencedQueue.Completion(j.lease(), "{}", List.of()))
                .toList());
      }
      // the window has moved on past every processed job, to an empty one
      long index = blocks(one.connection(), schema);
      assertThat(index).as("the window index's size in blocks").isGreaterThan(60);
      long id = queue.enqueue("q", "{}");
      long before = blocksRead(one.connection(), schema);

      assertThat(queue.claim("q", "w", LONG).orElseThrow().id()).isEqualTo(id);

      // a scan from the index's start reads every block of it, once per window the claim reads
      assertThat(blocksRead(one.connection(), schema) - before)
          .as("window index blocks read by one claim (the index has %d)", index)
          .isLessThan(20);
    }
  }

  /** The window index's blocks read so far (cache hits included), flushed by this backend. */
  private static long blocksRead(Connection c, TestSchema schema) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute("select pg_stat_force_next_flush()");
      try (ResultSet r =
          s.executeQuery(
              "select idx_blks_read + idx_blks_hit from pg_statio_all_indexes where indexrelid = '\""
                  + schema.name()
                  + "\".fencing_append_job_window_ix'::regclass")) {
        r.next();
        return r.getLong(1);
      }
    }
  }

  private static long blocks(Connection c, TestSchema schema) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet r =
            s.executeQuery(
                "select pg_relation_size('\""
                    + schema.name()
                    + "\".fencing_append_job_window_ix') / current_setting('block_size')::int")) {
      r.next();
      return r.getLong(1);
    }
  }
}
