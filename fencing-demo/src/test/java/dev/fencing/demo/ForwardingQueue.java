package dev.fencing.demo;

import dev.fencing.FencedOutcome;
import dev.fencing.FencedQueue;
import dev.fencing.Job;
import dev.fencing.JobSnapshot;
import dev.fencing.Lease;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/** Passes every call to the real queue; a broken variant overrides the one guard it removes. */
public class ForwardingQueue implements FencedQueue {

  private final FencedQueue delegate;

  public ForwardingQueue(FencedQueue delegate) {
    this.delegate = delegate;
  }

  @Override
  public long enqueue(String queue, String payload) {
    return delegate.enqueue(queue, payload);
  }

  @Override
  public List<Long> enqueueAll(String queue, List<String> payloads) {
    return delegate.enqueueAll(queue, payloads);
  }

  @Override
  public Optional<Job> claim(String queue, String owner, Duration leaseLength) {
    return delegate.claim(queue, owner, leaseLength);
  }

  @Override
  public List<Job> claimBatch(String queue, String owner, Duration leaseLength, int batchSize) {
    return delegate.claimBatch(queue, owner, leaseLength, batchSize);
  }

  @Override
  public Lease renew(Lease lease, Duration leaseLength) {
    return delegate.renew(lease, leaseLength);
  }

  @Override
  public FencedOutcome.Accepted complete(Lease lease, String result) {
    return delegate.complete(lease, result);
  }

  @Override
  public FencedOutcome.Accepted fail(Lease lease, String error, Duration retryDelay) {
    return delegate.fail(lease, error, retryDelay);
  }

  @Override
  public FencedOutcome.Accepted release(Lease lease) {
    return delegate.release(lease);
  }

  @Override
  public Optional<JobSnapshot> find(long jobId) {
    return delegate.find(jobId);
  }

  @Override
  public dev.fencing.QueueDepth depth(String queue) {
    return delegate.depth(queue);
  }

  @Override
  public java.util.List<dev.fencing.Enqueued> enqueueKeyed(
      String queue, java.util.List<dev.fencing.KeyedJob> jobs) {
    return delegate.enqueueKeyed(queue, jobs);
  }

  @Override
  public boolean awaitWork(String queue, java.time.Duration timeout) throws InterruptedException {
    return delegate.awaitWork(queue, timeout);
  }

  @Override
  public boolean signalsWork() {
    return delegate.signalsWork();
  }
}
