package dev.fencing.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.FencedQueue;
import dev.fencing.Job;
import dev.fencing.Lease;
import dev.fencing.Renewal;
import dev.fencing.testkit.db.FencingDatabase;
import dev.fencing.testkit.db.TestSchema;
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
 * was nearly empty, and that plan scanned the whole table on every claim until the first analyze
 * replaced it (234 ms a claim at 46,000 rows; docs/BENCHMARKS.md). The batched commit and renewal
 * join the table the same way. All three must stay unnamed statements, planned at every execution.
 */
@FencingDatabase
class PlanCachedWhileTheTableWasEmptyTest {

  private static final Duration LONG = Duration.ofMinutes(5);

  @Test
  void claimBatchedCommitAndRenewalAreNeverLeftPreparedOnTheServer(TestSchema schema)
      throws Exception {
    try (OneConnection one = new OneConnection(schema.dataSource(), true)) {
      FencedQueue queue =
          PostgresFencing.builder(one.dataSource()).schema(schema.name()).build().queue();
      for (int i = 0; i < 20; i++) {
        assertThat(queue.claimBatch("q", "w1", LONG, 10)).isEmpty();
      }
      List<Long> ids = queue.enqueueAll("q", Collections.nCopies(40, "{}"));
      List<Lease> held = new ArrayList<>();
      for (int i = 0; i < 20; i++) {
        Job job = queue.claimBatch("q", "w1", LONG, 1).getFirst();
        held.add(((Renewal.Renewed) queue.renewAll(List.of(job.lease()), LONG).getFirst()).lease());
      }
      for (int i = 0; i < 10; i++) {
        queue.completeAll(List.of(new FencedQueue.Completion(held.get(i), "{}")));
      }
      for (int i = 10; i < 20; i++) {
        queue.complete(held.get(i), "{}");
      }
      assertThat(ids).hasSize(40);

      List<String> prepared = new ArrayList<>();
      try (Statement s = one.connection().createStatement();
          ResultSet r = s.executeQuery("select statement from pg_prepared_statements")) {
        while (r.next()) {
          prepared.add(r.getString(1));
        }
      }
      // the single commit, by primary key, may keep a cached plan: seeing it shows the view works
      assertThat(prepared)
          .as("statements prepared on the server")
          .anyMatch(sql -> sql.startsWith("update") && !sql.contains("unnest"))
          .noneMatch(sql -> sql.contains("skip locked"))
          .noneMatch(sql -> sql.contains("unnest"));
    }
  }
}
