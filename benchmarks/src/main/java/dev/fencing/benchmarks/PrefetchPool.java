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
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * The worker pool as it was before {@code FencedRuntime}: one batched claimer filling a prefetch
 * buffer, handler threads that pull from it, one batched committer; no heartbeats. Kept only as the
 * baseline the runtime is measured against in the same benchmark run; never use it for real work
 * (its leases are never renewed).
 */
final class PrefetchPool implements AutoCloseable {

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
  private final Duration maxCommitDelay;
  private final Duration idleWait;
  private final Consumer<FencedOutcome.Refused> onRefused;
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

  private PrefetchPool(Builder b) {
    this.queue = b.queue;
    this.queueName = Validate.identifier("queue", b.queueName);
    this.owner = Validate.owner(b.owner);
    this.batchSize = Validate.batchSize(b.batchSize);
    this.leaseLength = Validate.leaseLength(b.leaseLength);
    this.maxCommitDelay = Validate.delay("maxCommitDelay", b.maxCommitDelay);
    this.idleWait = Validate.delay("idleWait", b.idleWait);
    this.onRefused = b.onRefused;
    this.claimed = new LinkedBlockingQueue<>(2 * batchSize);
    // bounded, so that handlers wait for the committer instead of running ahead of it
    this.completions = new LinkedBlockingQueue<>(4 * batchSize);
    this.claimer =
        Thread.ofPlatform().daemon().name("fencing-claimer-" + owner).unstarted(this::claimLoop);
    this.committer =
        Thread.ofPlatform().daemon().name("fencing-committer-" + owner).unstarted(this::commitLoop);
  }

  /**
   * Starts configuring a pool on {@code queue}.
   *
   * @throws NullPointerException if {@code queue} is null
   */
  public static Builder builder(FencedQueue queue) {
    return new Builder(Objects.requireNonNull(queue, "queue"));
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
          Thread.sleep(idleWait.toMillis());
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
        long deadline = System.nanoTime() + maxCommitDelay.toNanos();
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
          case FencedOutcome.Refused r -> {
            refusedCount.incrementAndGet();
            onRefused.accept(r);
          }
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

  /** Configures a {@link PrefetchPool}; {@link #start()} checks every setting. */
  public static final class Builder {
    private final FencedQueue queue;
    private @Nullable String queueName;
    private @Nullable String owner;
    private int batchSize = 100;
    private Duration leaseLength = Duration.ofSeconds(30);
    private Duration maxCommitDelay = Duration.ofMillis(2);
    private Duration idleWait = Duration.ofMillis(50);
    private Consumer<FencedOutcome.Refused> onRefused = refused -> {};

    private Builder(FencedQueue queue) {
      this.queue = queue;
    }

    /** The queue to claim from: a plain identifier. Required. */
    public Builder queue(String queueName) {
      this.queueName = queueName;
      return this;
    }

    /** This process's name, stored as the owner of what it claims. Required. */
    public Builder owner(String owner) {
      this.owner = owner;
      return this;
    }

    /** Jobs per claim and results per commit, 1 to 10,000; default 100. */
    public Builder batchSize(int batchSize) {
      this.batchSize = batchSize;
      return this;
    }

    /** The lease of each claimed job; default 30 s. Prefetched jobs age while they wait. */
    public Builder leaseLength(Duration leaseLength) {
      this.leaseLength = leaseLength;
      return this;
    }

    /** How long a result waits for others to share its commit statement; default 2 ms. */
    public Builder maxCommitDelay(Duration maxCommitDelay) {
      this.maxCommitDelay = maxCommitDelay;
      return this;
    }

    /** How long the claimer waits after a claim found nothing; default 50 ms. */
    public Builder idleWait(Duration idleWait) {
      this.idleWait = idleWait;
      return this;
    }

    /** Called, on the committer thread, for each refused commit (a zombie's result). */
    public Builder onRefused(Consumer<FencedOutcome.Refused> onRefused) {
      this.onRefused = Objects.requireNonNull(onRefused, "onRefused");
      return this;
    }

    /**
     * Starts the claimer and committer threads and returns the running pool.
     *
     * @throws IllegalArgumentException naming the first setting missing or out of range
     */
    public PrefetchPool start() {
      return new PrefetchPool(this).start();
    }
  }
}
