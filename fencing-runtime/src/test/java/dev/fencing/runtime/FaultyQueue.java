package dev.fencing.runtime;

import dev.fencing.CommitOutcome;
import dev.fencing.FencedQueue;
import dev.fencing.Job;
import dev.fencing.Lease;
import dev.fencing.Renewal;
import dev.fencing.testkit.fault.ForwardingQueue;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/**
 * A real queue with faults switched on by the test: renewals that cannot reach the store, renewals
 * held back (as behind a stalled network) until the test lets them go, and a claim whose answer
 * comes back late (as over a slow network). Everything else goes to the store.
 */
final class FaultyQueue extends ForwardingQueue {

  private final FencedQueue real;
  volatile boolean renewalsFail;

  /** While set (not null), each renewal waits until it counts down, then goes to the store. */
  volatile CountDownLatch renewalsHeldUntil;

  volatile Duration claimAnswerDelay = Duration.ZERO;

  FaultyQueue(FencedQueue real) {
    super(real);
    this.real = real;
  }

  @Override
  public List<CommitOutcome> completeAll(List<Completion> completions) {
    return real.completeAll(completions);
  }

  @Override
  public List<Renewal> renewAll(List<Lease> leases, Duration leaseLength) {
    if (renewalsFail) {
      throw new IllegalStateException("test: the store cannot be reached for renewals");
    }
    CountDownLatch held = renewalsHeldUntil;
    if (held != null) {
      try {
        held.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("test: interrupted while the renewal was held", e);
      }
    }
    return real.renewAll(leases, leaseLength);
  }

  @Override
  public List<Job> claimBatch(String queue, String owner, Duration leaseLength, int batchSize) {
    List<Job> jobs = super.claimBatch(queue, owner, leaseLength, batchSize);
    if (!jobs.isEmpty() && !claimAnswerDelay.isZero()) {
      try {
        Thread.sleep(claimAnswerDelay);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    return jobs;
  }
}
