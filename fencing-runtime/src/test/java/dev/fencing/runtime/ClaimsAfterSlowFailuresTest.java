package dev.fencing.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.FencedQueue;
import dev.fencing.ForwardingFencedQueue;
import dev.fencing.Job;
import dev.fencing.StoreUnavailableException;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.receiver.Receivers;
import dev.fencing.testkit.db.FencingDatabase;
import dev.fencing.testkit.db.TestSchema;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The claim loop's backoff spaces the starts of its claims: a claim that failed after waiting as
 * long as the backoff already (for a pool's connection while no primary answers, docs/HA.md) is
 * sent again at once, so that the next one waits in the pool, not in the runtime, when the primary
 * comes back. Claims that fail slowly (1 s each, four times) follow each other without a pause; the
 * backoff of 50, 100, 200 and 400 ms after them would have added 750 ms.
 */
@FencingDatabase
class ClaimsAfterSlowFailuresTest {

  private static final Duration SLOW = Duration.ofSeconds(1);
  private static final int FAILURES = 4;

  @Test
  void aClaimThatFailedSlowlyIsSentAgainAtOnce(TestSchema schema) throws Exception {
    FencedQueue real =
        PostgresFencing.builder(schema.dataSource()).schema(schema.name()).build().queue();
    real.enqueue("q", "{}");
    SlowlyFailing queue = new SlowlyFailing(real);
    Outcomes outcomes = new Outcomes();
    try (QueueRuntime runtime =
        QueueRuntime.builder(queue, Receivers.inMemory())
            .queue("q")
            .owner("w")
            .onOutcome(outcomes)
            .handler((job, cancellation) -> "{}")
            .start()) {
      outcomes.await(WorkOutcome.Completed.class, 1, Duration.ofSeconds(30));
    }
    List<long[]> calls = queue.calls();
    long pauses = 0;
    for (int i = 1; i <= FAILURES; i++) {
      pauses += calls.get(i)[0] - calls.get(i - 1)[1];
    }
    System.out.printf(
        "[claims] pauses after %d claims that failed after %d ms: %d ms in all%n",
        FAILURES, SLOW.toMillis(), pauses / 1_000_000);
    assertThat(Duration.ofNanos(pauses)).isLessThan(Duration.ofMillis(350));
  }

  /** Its first claims fail after {@link #SLOW}, as a claim waiting for a pool's connection does. */
  private static final class SlowlyFailing extends ForwardingFencedQueue {
    private final List<long[]> calls = new ArrayList<>();

    SlowlyFailing(FencedQueue queue) {
      super(queue);
    }

    @Override
    public List<Job> claimBatch(String queue, String owner, Duration leaseLength, int batchSize) {
      long start = System.nanoTime();
      int n;
      synchronized (calls) {
        n = calls.size();
        calls.add(new long[] {start, 0});
      }
      try {
        if (n < FAILURES) {
          try {
            Thread.sleep(SLOW);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          throw new StoreUnavailableException("test: no connection within " + SLOW);
        }
        return super.claimBatch(queue, owner, leaseLength, batchSize);
      } finally {
        synchronized (calls) {
          calls.get(n)[1] = System.nanoTime();
        }
      }
    }

    List<long[]> calls() {
      synchronized (calls) {
        return List.copyOf(calls);
      }
    }
  }
}
