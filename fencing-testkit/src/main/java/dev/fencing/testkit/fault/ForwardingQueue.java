package dev.fencing.testkit.fault;

import dev.fencing.Enqueued;
import dev.fencing.FencedOutcome;
import dev.fencing.FencedQueue;
import dev.fencing.Job;
import dev.fencing.JobSnapshot;
import dev.fencing.KeyedJob;
import dev.fencing.Lease;
import dev.fencing.QueueDepth;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Passes each call to a real queue; a test overrides the calls it wants to break or slow down: a
 * broken variant that removes one guard, a commit that hangs, a renewal that cannot reach the
 * store.
 *
 * <p>Forwarded: every method that works on one job or one call ({@code enqueue}, {@code
 * enqueueAll}, {@code enqueueKeyed}, {@code claim}, {@code claimBatch}, {@code renew}, {@code
 * complete(Lease, String)}, {@code fail}, {@code release}, {@code find}, {@code depth}, {@code
 * awaitWork}, {@code signalsWork}). Not forwarded: the batched writes ({@code renewAll}, {@code
 * completeAll}) and the commit with outbox messages keep {@link FencedQueue}'s defaults, which loop
 * over {@code renew} and {@code complete}, so that an override of one guard reaches them too, and
 * so that a forwarding queue is one without an outbox (a commit with messages throws {@link
 * UnsupportedOperationException}). Override them to forward them.
 */
public class ForwardingQueue implements FencedQueue {

  private final FencedQueue delegate;

  /**
   * @throws NullPointerException if {@code delegate} is null
   */
  public ForwardingQueue(FencedQueue delegate) {
    this.delegate = Objects.requireNonNull(delegate, "delegate");
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
  public List<Enqueued> enqueueKeyed(String queue, List<KeyedJob> jobs) {
    return delegate.enqueueKeyed(queue, jobs);
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
  public QueueDepth depth(String queue) {
    return delegate.depth(queue);
  }

  @Override
  public boolean awaitWork(String queue, Duration timeout) throws InterruptedException {
    return delegate.awaitWork(queue, timeout);
  }

  @Override
  public boolean signalsWork() {
    return delegate.signalsWork();
  }
}
