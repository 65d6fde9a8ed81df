package dev.fencing.benchmarks;

import dev.fencing.CommitOutcome;
import dev.fencing.FencedOutcome;
import dev.fencing.FencedQueue;
import dev.fencing.Job;
import dev.fencing.internal.Validate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The worker pool as it was before the worker runtime ({@code FencedWorkers}): one batched claimer
 * filling a prefetch buffer, handler threads that pull from it, one batched committer; no
 * heartbeats. Kept only as the baseline the runtime is measured against in the same benchmark run;
 * never use it for real work (its leases are never renewed).
 */
final class PrefetchPool implements AutoCloseable {

  static final long MAX_COMMIT_DELAY_MILLIS = 2;
  static final long IDLE_WAIT_MILLIS = 50;

  /** Counters since start. */
  public record Stats(
      long claimed,
      long committed,
      long refused,
      long claimStatements,
      long commitStatements,
      long errors) {}

  private final FencedQueue queue;
  private final String queueName;
  private final String owner;
  private final int batchSize;
  private final Duration leaseLength;
  private final BlockingQueue<Job> claimed;
  private final BlockingQueue<FencedQueue.Completion> completions;
  private final AtomicLong claimedCount = new AtomicLong();
  private final AtomicLong committedCount = new AtomicLong();
  private final AtomicLong refusedCount = new AtomicLong();
  private final AtomicLong claimStatements = new AtomicLong();
  private final AtomicLong commitStatements = new AtomicLong();
  private final AtomicLong errors = new AtomicLong();
  private final Thread claimer;
  private final Thread committer;
  private volatile boolean running = true;

  private PrefetchPool(
      FencedQueue queue, String queueName, String owner, int batchSize, Duration leaseLength) {
    this.queue = Objects.requireNonNull(queue, "queue");
    this.queueName = Validate.identifier("queue", queueName);
    this.owner = Validate.owner(owner);
    this.batchSize = Validate.batchSize(batchSize);
    this.leaseLength = Validate.leaseLength(leaseLength);
    this.claimed = new LinkedBlockingQueue<>(2 * batchSize);
    // bounded, so that handlers wait for the committer instead of running ahead of it
    this.completions = new LinkedBlockingQueue<>(4 * batchSize);
    this.claimer =
        Thread.ofPlatform().daemon().name("fencing-claimer-" + owner).unstarted(this::claimLoop);
    this.committer =
        Thread.ofPlatform().daemon().name("fencing-committer-" + owner).unstarted(this::commitLoop);
  }

  /**
   * Starts a pool claiming from queue {@code queueName} of {@code queue} as {@code owner}, {@code
   * batchSize} jobs per claim and results per commit (1 to 10,000), each job on a lease of {@code
   * leaseLength} (prefetched jobs age while they wait); a result waits up to {@value
   * #MAX_COMMIT_DELAY_MILLIS} ms for others to share its commit, and the claimer {@value
   * #IDLE_WAIT_MILLIS} ms after a claim found nothing.
   *
   * @throws IllegalArgumentException naming the first setting out of range
   */
  static PrefetchPool start(
      FencedQueue queue, String queueName, String owner, int batchSize, Duration leaseLength) {
    return new PrefetchPool(queue, queueName, owner, batchSize, leaseLength).start();
  }

  /** Returns the next claimed job, waiting up to {@code timeout}; empty if none came. */
  public Optional<Job> next(Duration timeout) {
    try {
      return Optional.ofNullable(claimed.poll(timeout.toNanos(), TimeUnit.NANOSECONDS));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.empty();
    }
  }

  /**
   * Queues {@code job}'s result for the next batched commit, waiting while {@code 4 × batchSize}
   * results are already queued. A refused commit is counted and passed to the pool's refusal
   * listener; the result is dropped.
   *
   * @throws IllegalArgumentException if {@code result} is not valid JSON
   * @throws IllegalStateException if interrupted while waiting; the result was not queued
   */
  public void complete(Job job, String result) {
    Validate.json("result", result);
    try {
      completions.put(new FencedQueue.Completion(job.lease(), result));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted queueing the result of job " + job.id(), e);
    }
  }

  /** Records a failure at once (not batched); see {@link FencedQueue#fail}. */
  public FencedOutcome.Accepted fail(Job job, String error, Duration retryDelay) {
    return queue.fail(job.lease(), error, retryDelay);
  }

  /** Returns the counters so far. */
  public Stats stats() {
    return new Stats(
        claimedCount.get(),
        committedCount.get(),
        refusedCount.get(),
        claimStatements.get(),
        commitStatements.get(),
        errors.get());
  }

  /**
   * Stops claiming, commits every queued result, and releases the jobs claimed but not handed out,
   * so that they are claimable again at once.
   */
  @Override
  public void close() {
    running = false;
    claimer.interrupt();
    join(claimer);
    join(committer);
    List<Job> unstarted = new ArrayList<>();
    claimed.drainTo(unstarted);
    for (Job job : unstarted) {
      try {
        queue.release(job.lease());
      } catch (RuntimeException e) {
        errors.incrementAndGet();
      }
    }
  }

  private PrefetchPool start() {
    claimer.start();
    committer.start();
    return this;
  }

  private void claimLoop() {
    while (running) {
      try {
        if (claimed.remainingCapacity() < batchSize) {
          Thread.sleep(1);
          continue;
        }
        List<Job> jobs = queue.claimBatch(queueName, owner, leaseLength, batchSize);
        claimStatements.incrementAndGet();
        claimedCount.addAndGet(jobs.size());
        claimed.addAll(jobs);
        if (jobs.isEmpty()) {
          Thread.sleep(IDLE_WAIT_MILLIS);
        }
      } catch (InterruptedException e) {
        return;
      } catch (RuntimeException e) {
        errors.incrementAndGet();
        pause(Duration.ofMillis(100));
      }
    }
  }

  private void commitLoop() {
    List<FencedQueue.Completion> batch = new ArrayList<>(batchSize);
    while (running || !completions.isEmpty()) {
      try {
        FencedQueue.Completion first = completions.poll(10, TimeUnit.MILLISECONDS);
        if (first == null) {
          continue;
        }
        batch.add(first);
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(MAX_COMMIT_DELAY_MILLIS);
        while (batch.size() < batchSize) {
          FencedQueue.Completion more =
              completions.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
          if (more == null) {
            break;
          }
          batch.add(more);
        }
        commit(batch);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } finally {
        batch.clear();
      }
    }
  }

  private void commit(List<FencedQueue.Completion> batch) {
    try {
      List<CommitOutcome> outcomes = queue.completeAll(batch);
      commitStatements.incrementAndGet();
      for (CommitOutcome outcome : outcomes) {
        switch (outcome) {
          case FencedOutcome.Accepted a -> committedCount.incrementAndGet();
          case FencedOutcome.Refused r -> refusedCount.incrementAndGet();
          case CommitOutcome.Invalid i -> errors.incrementAndGet();
        }
      }
    } catch (RuntimeException e) {
      // the leases run out and the jobs are claimed again: nothing is lost, the work is redone
      errors.incrementAndGet();
    }
  }

  private static void join(Thread thread) {
    try {
      thread.join(Duration.ofSeconds(30));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void pause(Duration duration) {
    try {
      Thread.sleep(duration);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
