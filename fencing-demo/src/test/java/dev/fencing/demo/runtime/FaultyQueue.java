package dev.fencing.demo.runtime;

import dev.fencing.CommitOutcome;
import dev.fencing.FencedOutcome;
import dev.fencing.FencedQueue;
import dev.fencing.Job;
import dev.fencing.JobSnapshot;
import dev.fencing.Lease;
import dev.fencing.Renewal;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * A real queue with faults switched on by the test: renewals that cannot reach the store, and a
 * claim whose answer comes back late (as over a slow network). Everything else goes to the store.
 */
final class FaultyQueue implements FencedQueue {

  private final FencedQueue real;
  volatile boolean renewalsFail;
  volatile Duration claimAnswerDelay = Duration.ZERO;

  FaultyQueue(FencedQueue real) {
    this.real = real;
  }

  @Override
  public List<Renewal> renewAll(List<Lease> leases, Duration leaseLength) {
    if (renewalsFail) {
      throw new IllegalStateException("test: the store cannot be reached for renewals");
    }
    return real.renewAll(leases, leaseLength);
  }

  @Override
  public List<Job> claimBatch(String queue, String owner, Duration leaseLength, int batchSize) {
    List<Job> jobs = real.claimBatch(queue, owner, leaseLength, batchSize);
    if (!jobs.isEmpty() && !claimAnswerDelay.isZero()) {
      try {
        Thread.sleep(claimAnswerDelay);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    return jobs;
  }

  @Override
  public long enqueue(String queue, String payload) {
    return real.enqueue(queue, payload);
  }

  @Override
  public List<Long> enqueueAll(String queue, List<String> payloads) {
    return real.enqueueAll(queue, payloads);
  }

  @Override
  public Optional<Job> claim(String queue, String owner, Duration leaseLength) {
    return real.claim(queue, owner, leaseLength);
  }

  @Override
  public Lease renew(Lease lease, Duration leaseLength) {
    return real.renew(lease, leaseLength);
  }

  @Override
  public FencedOutcome.Accepted complete(Lease lease, String result) {
    return real.complete(lease, result);
  }

  @Override
  public List<CommitOutcome> completeAll(List<Completion> completions) {
    return real.completeAll(completions);
  }

  @Override
  public FencedOutcome.Accepted fail(Lease lease, String error, Duration retryDelay) {
    return real.fail(lease, error, retryDelay);
  }

  @Override
  public FencedOutcome.Accepted release(Lease lease) {
    return real.release(lease);
  }

  @Override
  public Optional<JobSnapshot> find(long jobId) {
    return real.find(jobId);
  }
}
