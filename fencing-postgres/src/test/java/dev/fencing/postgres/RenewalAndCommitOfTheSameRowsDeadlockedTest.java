package dev.fencing.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.CommitOutcome;
import dev.fencing.FencedOutcome;
import dev.fencing.FencedQueue;
import dev.fencing.Job;
import dev.fencing.Lease;
import dev.fencing.testkit.db.FencingDatabase;
import dev.fencing.testkit.db.TestSchema;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import org.junit.jupiter.api.Test;

/**
 * Under load a runtime's heartbeat renewed a batch of leases while its committer committed an
 * overlapping batch; the two statements locked the rows in different orders, deadlocked, and
 * PostgreSQL broke the deadlock only after {@code deadlock_timeout} (1 s), stalling every commit
 * each time. Both batches now lock in job id order. Retries are off here, so a deadlock surfaces as
 * the failure it is instead of a silent second, which the retry would hide.
 */
@FencingDatabase
class RenewalAndCommitOfTheSameRowsDeadlockedTest {

  private static final Duration LONG = Duration.ofMinutes(5);

  @Test
  void aRenewalAndACommitOfTheSameRowsInOppositeOrdersBothFinish(TestSchema schema)
      throws Exception {
    FencedQueue queue =
        PostgresFencing.builder(schema.pooledDataSource(4))
            .schema(schema.name())
            .transientRetries(0)
            .build()
            .queue();
    for (int round = 0; round < 10; round++) {
      queue.enqueueAll("q", Collections.nCopies(200, "{}"));
      List<Lease> leases = queue.claimBatch("q", "w1", LONG, 200).stream().map(Job::lease).toList();
      assertThat(leases).hasSize(200);
      List<FencedQueue.Completion> completions = new ArrayList<>();
      for (Lease lease : leases.reversed()) {
        completions.add(new FencedQueue.Completion(lease, "{}"));
      }
      CyclicBarrier together = new CyclicBarrier(2);
      CompletableFuture<?> renewal =
          CompletableFuture.runAsync(
              () -> {
                await(together);
                queue.renewAll(leases, LONG);
              });
      CompletableFuture<List<CommitOutcome>> commit =
          CompletableFuture.supplyAsync(
              () -> {
                await(together);
                return queue.completeAll(completions);
              });
      renewal.get();
      assertThat(commit.get())
          .as("round %d", round)
          .allSatisfy(o -> assertThat(o).isInstanceOf(FencedOutcome.Accepted.class));
    }
  }

  private static void await(CyclicBarrier barrier) {
    try {
      barrier.await();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
