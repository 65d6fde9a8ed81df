package dev.fencing;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * A {@link FencedQueue} that passes every call to another one: each method, the interface's default
 * methods included, calls the same method of the delegate, so the delegate's own way of doing it
 * (one statement for {@code completeAll} or {@code renewAll} on PostgreSQL, its outbox) is kept.
 * Extend it to watch or change some calls (metering, counting, a test's injected fault) and inherit
 * the rest.
 *
 * @since 0.1
 */
public abstract class ForwardingFencedQueue implements FencedQueue {

  private final Supplier<FencedQueue> delegate;

  /**
   * @throws NullPointerException if {@code delegate} is null
   */
  protected ForwardingFencedQueue(FencedQueue delegate) {
    Objects.requireNonNull(delegate, "delegate");
    this.delegate = () -> delegate;
  }

  /**
   * Forwards each call to the queue {@code delegate} supplies at that call: for a queue chosen
   * late, or one that may be replaced while running. The supplier must not return null.
   *
   * @throws NullPointerException if {@code delegate} is null
   */
  protected ForwardingFencedQueue(Supplier<? extends FencedQueue> delegate) {
    Objects.requireNonNull(delegate, "delegate");
    this.delegate = delegate::get;
  }

  /** Returns the queue this call goes to. */
  protected final FencedQueue delegate() {
    return delegate.get();
  }

  @Override
  public long enqueue(String queue, String payload) {
    return delegate().enqueue(queue, payload);
  }

  @Override
  public List<Long> enqueueAll(String queue, List<String> payloads) {
    return delegate().enqueueAll(queue, payloads);
  }

  @Override
  public long enqueue(String queue, String payload, JobOptions options) {
    return delegate().enqueue(queue, payload, options);
  }

  @Override
  public List<Long> enqueueAll(String queue, List<String> payloads, JobOptions options) {
    return delegate().enqueueAll(queue, payloads, options);
  }

  @Override
  public CancelResult cancel(long jobId, @Nullable String reason) {
    return delegate().cancel(jobId, reason);
  }

  @Override
  public CancelResult cancel(long jobId) {
    return delegate().cancel(jobId);
  }

  @Override
  public QueueLimits limits(String queue) {
    return delegate().limits(queue);
  }

  @Override
  public QueueLimits setLimits(String queue, QueueLimits limits) {
    return delegate().setLimits(queue, limits);
  }

  @Override
  public Enqueued enqueue(String queue, KeyedJob job) {
    return delegate().enqueue(queue, job);
  }

  @Override
  public List<Enqueued> enqueueKeyed(String queue, List<KeyedJob> jobs) {
    return delegate().enqueueKeyed(queue, jobs);
  }

  @Override
  public Optional<Job> claim(String queue, String owner, Duration leaseLength) {
    return delegate().claim(queue, owner, leaseLength);
  }

  @Override
  public List<Job> claimBatch(String queue, String owner, Duration leaseLength, int batchSize) {
    return delegate().claimBatch(queue, owner, leaseLength, batchSize);
  }

  @Override
  public Lease renew(Lease lease, Duration leaseLength) {
    return delegate().renew(lease, leaseLength);
  }

  @Override
  public List<Renewal> renewAll(List<Lease> leases, Duration leaseLength) {
    return delegate().renewAll(leases, leaseLength);
  }

  @Override
  public FencedOutcome.Accepted complete(Lease lease, String result) {
    return delegate().complete(lease, result);
  }

  @Override
  public FencedOutcome.Accepted complete(Lease lease, String result, List<OutboxMessage> messages) {
    return delegate().complete(lease, result, messages);
  }

  @Override
  public List<CommitOutcome> completeAll(List<Completion> completions) {
    return delegate().completeAll(completions);
  }

  @Override
  public FencedOutcome.Accepted fail(Lease lease, String error, Duration retryDelay) {
    return delegate().fail(lease, error, retryDelay);
  }

  @Override
  public FencedOutcome.Accepted failFinally(Lease lease, String error) {
    return delegate().failFinally(lease, error);
  }

  @Override
  public FencedOutcome.Accepted release(Lease lease) {
    return delegate().release(lease);
  }

  @Override
  public Optional<JobSnapshot> find(long jobId) {
    return delegate().find(jobId);
  }

  @Override
  public boolean awaitWork(String queue, Duration timeout) throws InterruptedException {
    return delegate().awaitWork(queue, timeout);
  }

  @Override
  public boolean signalsWork() {
    return delegate().signalsWork();
  }

  @Override
  public QueueDepth depth(String queue) {
    return delegate().depth(queue);
  }

  @Override
  public long waitingForLimits(String queue) {
    return delegate().waitingForLimits(queue);
  }

  @Override
  public String toString() {
    return getClass().getSimpleName() + "[" + delegate() + "]";
  }

  /** Returns the delegate's codec. */
  @Override
  public JobCodec codec() {
    return delegate().codec();
  }

  /**
   * Encodes with {@link #codec()} (the delegate's) and adds through this queue's {@link
   * #enqueue(String, String)}, so a subclass that watches that call sees typed jobs too.
   */
  @Override
  public <P> long enqueue(JobType<P, ?> type, P payload) {
    return FencedQueue.super.enqueue(type, payload);
  }

  /** As {@link #enqueue(JobType, Object)}, through {@link #enqueue(String, String, JobOptions)}. */
  @Override
  public <P> long enqueue(JobType<P, ?> type, P payload, JobOptions options) {
    return FencedQueue.super.enqueue(type, payload, options);
  }

  /**
   * As {@link #enqueue(JobType, Object)}, through {@link #enqueueAll(String, List, JobOptions)}.
   */
  @Override
  public <P> List<Long> enqueueAll(
      JobType<P, ?> type, List<? extends P> payloads, JobOptions options) {
    return FencedQueue.super.enqueueAll(type, payloads, options);
  }

  /** As {@link #enqueue(JobType, Object)}, through {@link #enqueue(String, KeyedJob)}. */
  @Override
  public <P> Enqueued enqueue(JobType<P, ?> type, String key, P payload, JobOptions options) {
    return FencedQueue.super.enqueue(type, key, payload, options);
  }

  /** Reads through this queue's {@link #find(long)} and decodes with {@link #codec()}. */
  @Override
  public <R> Optional<R> result(JobType<?, R> type, long jobId) {
    return FencedQueue.super.result(type, jobId);
  }
}
