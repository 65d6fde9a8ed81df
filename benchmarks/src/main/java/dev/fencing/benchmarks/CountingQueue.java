package dev.fencing.benchmarks;

import dev.fencing.CommitOutcome;
import dev.fencing.FencedOutcome;
import dev.fencing.FencedQueue;
import dev.fencing.Job;
import dev.fencing.JobSnapshot;
import dev.fencing.Lease;
import dev.fencing.QueueDepth;
import dev.fencing.Renewal;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A {@link FencedQueue} that passes every call on (its wake-ups included) and counts the batch
 * claims that returned nothing, which the runtime's own counters do not tell apart from full ones,
 * and times each batch claim.
 */
final class CountingQueue implements FencedQueue {

  private final FencedQueue queue;
  private final AtomicLong emptyClaims = new AtomicLong();
  private LatencyRecorder claimTimes = new LatencyRecorder(); // guarded by this

  CountingQueue(FencedQueue queue) {
    this.queue = queue;
  }

  /** Returns how many {@link #claimBatch} calls so far returned no job. */
  long emptyClaims() {
    return emptyClaims.get();
  }

  /** Returns the time of every {@link #claimBatch} call since the last call of this method. */
  synchronized LatencyRecorder takeClaimTimes() {
    LatencyRecorder taken = claimTimes;
    claimTimes = new LatencyRecorder();
    return taken;
  }

  @Override
  public List<Job> claimBatch(String queue, String owner, Duration leaseLength, int batchSize) {
    long start = System.nanoTime();
    List<Job> jobs = this.queue.claimBatch(queue, owner, leaseLength, batchSize);
    long took = System.nanoTime() - start;
    synchronized (this) {
      claimTimes.record(took);
    }
    if (jobs.isEmpty()) {
      emptyClaims.incrementAndGet();
    }
    return jobs;
  }

  @Override
  public boolean awaitWork(String queue, Duration timeout) throws InterruptedException {
    return this.queue.awaitWork(queue, timeout);
  }

  @Override
  public boolean signalsWork() {
    return queue.signalsWork();
  }

  @Override
  public long enqueue(String queue, String payload) {
    return this.queue.enqueue(queue, payload);
  }

  @Override
  public List<Long> enqueueAll(String queue, List<String> payloads) {
    return this.queue.enqueueAll(queue, payloads);
  }

  @Override
  public Optional<Job> claim(String queue, String owner, Duration leaseLength) {
    return this.queue.claim(queue, owner, leaseLength);
  }

  @Override
  public Lease renew(Lease lease, Duration leaseLength) {
    return queue.renew(lease, leaseLength);
  }

  @Override
  public List<Renewal> renewAll(List<Lease> leases, Duration leaseLength) {
    return queue.renewAll(leases, leaseLength);
  }

  @Override
  public FencedOutcome.Accepted complete(Lease lease, String result) {
    return queue.complete(lease, result);
  }

  @Override
  public List<CommitOutcome> completeAll(List<Completion> completions) {
    return queue.completeAll(completions);
  }

  @Override
  public FencedOutcome.Accepted fail(Lease lease, String error, Duration retryDelay) {
    return queue.fail(lease, error, retryDelay);
  }

  @Override
  public FencedOutcome.Accepted release(Lease lease) {
    return queue.release(lease);
  }

  @Override
  public Optional<JobSnapshot> find(long jobId) {
    return queue.find(jobId);
  }

  @Override
  public QueueDepth depth(String queue) {
    return this.queue.depth(queue);
  }
}
