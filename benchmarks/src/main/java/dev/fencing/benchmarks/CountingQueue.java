package dev.fencing.benchmarks;

import dev.fencing.FencedQueue;
import dev.fencing.ForwardingFencedQueue;
import dev.fencing.Job;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A {@link FencedQueue} that passes every call on (its wake-ups included) and counts the batch
 * claims that returned nothing, which the runtime's own counters do not tell apart from full ones,
 * and times each batch claim.
 */
final class CountingQueue extends ForwardingFencedQueue {

  private final AtomicLong emptyClaims = new AtomicLong();
  private LatencyRecorder claimTimes = new LatencyRecorder(); // guarded by this

  CountingQueue(FencedQueue queue) {
    super(queue);
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
    List<Job> jobs = delegate().claimBatch(queue, owner, leaseLength, batchSize);
    long took = System.nanoTime() - start;
    synchronized (this) {
      claimTimes.record(took);
    }
    if (jobs.isEmpty()) {
      emptyClaims.incrementAndGet();
    }
    return jobs;
  }
}
