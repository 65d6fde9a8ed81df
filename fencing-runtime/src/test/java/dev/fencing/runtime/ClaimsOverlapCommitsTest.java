package dev.fencing.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.FencedOutcome;
import dev.fencing.FencedQueue;
import dev.fencing.Lease;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.testkit.db.FencingDatabase;
import dev.fencing.testkit.db.TestSchema;
import dev.fencing.testkit.fault.ForwardingQueue;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A job's slot is free again once its handler is done: the next claim does not wait for the last
 * results' commit, and the results waiting for a commit are bounded, so a store that commits slowly
 * stops the claiming.
 */
@FencingDatabase
class ClaimsOverlapCommitsTest {

  @Test
  void theNextJobsAreClaimedWhileACommitHangsUpToTheCommitRoom(TestSchema schema) throws Exception {
    FencedQueue real =
        PostgresFencing.builder(schema.pooledDataSource(6)).schema(schema.name()).build().queue();
    for (int i = 0; i < 6; i++) {
      real.enqueue("q", "{}");
    }
    CountDownLatch commitsMayGo = new CountDownLatch(1);
    FencedQueue slowCommits =
        new ForwardingQueue(real) {
          @Override
          public FencedOutcome.Accepted complete(Lease lease, String result) {
            try {
              commitsMayGo.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
            return super.complete(lease, result);
          }
        };
    AtomicInteger handled = new AtomicInteger();
    Outcomes outcomes = new Outcomes();
    try (QueueRuntime runtime =
        QueueRuntime.builder(slowCommits)
            .queue("q")
            .owner("w")
            .concurrency(1)
            .prefetch(0)
            .batchSize(1)
            .maxCommitDelay(Duration.ZERO)
            .onOutcome(outcomes)
            .handler(
                (job, cancellation) -> {
                  handled.incrementAndGet();
                  return "{}";
                })
            .start()) {
      // One slot, batches of one, room for two results: the first commits (and hangs), the second
      // waits for it, the third job's handler is done and waits to hand over, holding the slot.
      long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
      while (handled.get() < 3 && System.nanoTime() < end) {
        Thread.sleep(10);
      }
      Thread.sleep(500); // a fourth job, if the room did not bound the hand-over, starts by now
      assertThat(handled).hasValue(3);
      commitsMayGo.countDown();
      assertThat(outcomes.await(WorkOutcome.Completed.class, 6, Duration.ofSeconds(10))).hasSize(6);
      assertThat(handled).hasValue(6);
    }
  }
}
