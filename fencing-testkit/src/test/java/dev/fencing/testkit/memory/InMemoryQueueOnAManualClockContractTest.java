package dev.fencing.testkit.memory;

import dev.fencing.FencedQueue;
import dev.fencing.testkit.contract.FencedQueueContract;
import dev.fencing.testkit.db.TestSchema;
import java.time.Duration;
import java.time.Instant;

/**
 * The queue's contract on a clock the test moves: every wait of the contract moves the clock
 * instead of sleeping, and every rule on leases and retry delays still holds.
 */
class InMemoryQueueOnAManualClockContractTest extends FencedQueueContract {

  private final ManualClock clock = ManualClock.startingNow();

  @Override
  protected FencedQueue queue(TestSchema unused) {
    return InMemoryQueue.builder().clock(clock).maxAttempts(3).build();
  }

  @Override
  protected void pause(Duration duration) {
    clock.advance(duration);
  }

  /**
   * Moves the clock past {@code instant} as this clock reads, not as the wall clock does: on a
   * loaded machine the wall clock may have passed it while this one has not moved.
   */
  @Override
  protected void sleepPast(Instant instant) {
    Duration wait = Duration.between(clock.instant(), instant).plusMillis(150);
    if (!wait.isNegative()) {
      clock.advance(wait);
    }
  }
}
