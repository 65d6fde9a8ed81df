package dev.fencing.runtime;

import dev.fencing.FencedReceiver;
import dev.fencing.JobConsumer;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The worker runtime: one process's claiming, heartbeats, handler threads, deliveries, batched
 * commits and shutdown, in the order that keeps a zombie harmless.
 *
 * <pre>{@code
 * try (FencedRuntime runtime = FencedRuntime.builder(queue, receiver)
 *     .queue("emails").owner("worker-1").concurrency(8)
 *     .handler((job, cancellation) -> send(job.payload()))
 *     .onOutcome(outcome -> log.info("{}", outcome))
 *     .start()) {
 *   awaitShutdownSignal();
 * }
 * }</pre>
 *
 * <p>The receiver is optional. Without one, a handler's result is committed only; an {@link
 * OutboxHandler} adds outbox messages that the commit writes in its own transaction, so a
 * fenced-off worker writes none, and {@link Builder#relay} sends them from the runtime:
 *
 * <pre>{@code
 * FencedRuntime.builder(queue).queue("emails").owner("worker-1")
 *     .outboxHandler((job, c) -> HandlerResult.of("{}", new OutboxMessage("mail", to(job), email(job))))
 *     .relay(outbox, "mail", envelope -> smtp.send(envelope))
 *     .start();
 * }</pre>
 *
 * <p>A claimer thread claims in batches, only as many jobs as there are free slots ({@code
 * concurrency + prefetch}; a job's slot is free again once its handler is done, so claims go out
 * while the last results are committed). Each job runs on one of {@code concurrency} handler
 * threads (platform threads, or virtual threads with {@link Builder#virtualThreads(boolean)}); its
 * result is delivered to the receiver, if there is one, with the job's id and epoch, then committed
 * with other results in one compare-and-set statement, together with their outbox messages. A
 * heartbeat renews every {@code heartbeatInterval} (default a third of the lease) each lease in
 * flight taken or last renewed more than half an interval ago; a lease that is lost, or that could
 * not be renewed before it ran out by this worker's clock, cancels its handler (see {@link
 * Cancellation}) and its result is neither delivered nor committed. No job is handed to a handler
 * with less than {@code minLeaseLeft} of its lease left. Every job claimed ends in exactly one
 * {@link WorkOutcome}.
 *
 * <p>Thread-safe. {@link #close()} stops claiming, releases jobs not yet started, lets running
 * handlers finish within the drain timeout and commits their results, then cancels and releases
 * what is left; the relay stops last, after one round that sends what the last commits wrote.
 */
public final class FencedRuntime implements AutoCloseable {

  /**
   * Counters since start.
   *
   * @param inFlight claims not yet ended: waiting for a thread, running, or committing
   */
  public record Stats(
      long claimed,
      long completed,
      long fencedOff,
      long failed,
      long released,
      long abandoned,
      int inFlight,
      long claimStatements,
      long commitStatements,
      long renewStatements,
      long renewed,
      long storeErrors,
      long callbackErrors) {

    /** Returns how many claims have ended, in any outcome. */
    public long ended() {
      return completed + fencedOff + failed + released + abandoned;
    }
  }

  /**
   * What the runtime's maintenance did since start (all zero without {@link Builder#maintenance}).
   *
   * @param rounds rounds that ran to the end
   * @param jobsRemoved finished jobs removed, archived ones included
   * @param jobsArchived of those, jobs archived first
   * @param messagesRemoved delivered outbox messages removed with their jobs
   * @param failures rounds that failed (each logged, then retried after a pause)
   */
  public record MaintenanceStats(
      long rounds, long jobsRemoved, long jobsArchived, long messagesRemoved, long failures) {}

  /**
   * What the runtime's relay did since start (all zero without {@link Builder#relay}).
   *
   * @param rounds rounds over every destination, failed ones included
   * @param sent messages sent and recorded, refused ones included
   * @param refused of those, messages the receiver refused (a newer epoch had reached it)
   * @param failures calls that failed (each logged; the message stays undelivered and is sent
   *     again)
   */
  public record RelayStats(long rounds, long sent, long refused, long failures) {}

  private final Pipeline pipeline;
  private final SidecarThreads sidecars;
  private final RuntimeThreads threads;

  private FencedRuntime(Pipeline pipeline, SidecarThreads sidecars) {
    this.pipeline = pipeline;
    this.sidecars = sidecars;
    this.threads = new RuntimeThreads(pipeline, sidecars);
  }

  /**
   * Whether handlers run on virtual threads when {@link Builder#virtualThreads(boolean)} is not
   * called: true on Java 24 and later, where a virtual thread blocking inside {@code synchronized}
   * no longer pins its carrier thread (JEP 491); false on Java 21 to 23.
   */
  public static boolean defaultVirtualThreads() {
    return DoorBuilder.virtualThreadsByDefault();
  }

  /**
   * Starts configuring a runtime that claims from {@code queue} and commits there, with no receiver
   * (see {@link Builder#receiver(FencedReceiver)}).
   *
   * @throws NullPointerException if {@code queue} is null
   */
  public static Builder builder(JobConsumer queue) {
    return new Builder(queue);
  }

  /**
   * Starts configuring a runtime that claims from {@code queue} and delivers to {@code receiver}:
   * {@code builder(queue).receiver(receiver)}.
   *
   * @throws NullPointerException if either is null
   */
  public static Builder builder(JobConsumer queue, FencedReceiver receiver) {
    return new Builder(queue).receiver(receiver);
  }

  /** Returns the counters so far. */
  public Stats stats() {
    Counters c = pipeline.counters;
    return new Stats(
        c.get(Counters.Count.CLAIMED),
        c.get(Counters.Count.COMPLETED),
        c.get(Counters.Count.FENCED_OFF),
        c.get(Counters.Count.FAILED),
        c.get(Counters.Count.RELEASED),
        c.get(Counters.Count.ABANDONED),
        pipeline.inFlight.size(),
        c.get(Counters.Count.CLAIM_STATEMENTS),
        c.get(Counters.Count.COMMIT_STATEMENTS),
        c.get(Counters.Count.RENEW_STATEMENTS),
        c.get(Counters.Count.RENEWED),
        c.get(Counters.Count.STORE_ERRORS),
        c.get(Counters.Count.CALLBACK_ERRORS));
  }

  /**
   * Whether the runtime can do its work now.
   *
   * @param renewalsFailing the latest lease renewal failed (after the queue's retries) and no
   *     statement of the runtime succeeded since: its leases will run out and its work be fenced
   *     off
   * @param claimsFailing the latest claim failed (the store unreachable, or refusing: a schema at a
   *     version the library may not run on, say); the runtime tries again with a backoff
   * @param lastFailure the latest failure's text, if any failed since start
   */
  public record Health(
      boolean renewalsFailing, boolean claimsFailing, java.util.Optional<String> lastFailure) {

    /** Whether neither renewals nor claims are failing. */
    public boolean healthy() {
      return !renewalsFailing && !claimsFailing;
    }
  }

  /** Returns whether the runtime can do its work now; see {@link Health}. */
  public Health health() {
    return new Health(
        pipeline.renewalsFailing(),
        pipeline.claimsFailing,
        java.util.Optional.ofNullable(pipeline.lastFailure));
  }

  /** Returns what the runtime's maintenance did so far. */
  public MaintenanceStats maintenanceStats() {
    return maintenanceStats(sidecars.maintenanceLoop);
  }

  /** Returns what the runtime's relay did so far. */
  public RelayStats relayStats() {
    return relayStats(sidecars.relayLoop);
  }

  static MaintenanceStats maintenanceStats(@Nullable MaintenanceLoop loop) {
    return loop == null
        ? new MaintenanceStats(0, 0, 0, 0, 0)
        : new MaintenanceStats(
            loop.count(MaintenanceLoop.Count.ROUNDS),
            loop.count(MaintenanceLoop.Count.JOBS_REMOVED),
            loop.count(MaintenanceLoop.Count.JOBS_ARCHIVED),
            loop.count(MaintenanceLoop.Count.MESSAGES_REMOVED),
            loop.count(MaintenanceLoop.Count.FAILURES));
  }

  static RelayStats relayStats(@Nullable RelayLoop loop) {
    return loop == null
        ? new RelayStats(0, 0, 0, 0)
        : new RelayStats(
            loop.count(RelayLoop.Count.ROUNDS),
            loop.count(RelayLoop.Count.SENT),
            loop.count(RelayLoop.Count.REFUSED),
            loop.count(RelayLoop.Count.FAILURES));
  }

  /** Stops as {@link #shutdown(Duration)} does, with the configured drain timeout. */
  @Override
  public void close() {
    shutdown(pipeline.settings.drainTimeout());
  }

  /**
   * Stops the runtime: stops claiming, releases jobs not yet started, lets running handlers finish
   * within {@code drainTimeout} and commits their results, then cancels the handlers still running
   * (interrupting them) and releases their jobs without counting an attempt; then the relay, if
   * any, runs one last round and stops. Returns when every runtime thread has ended, or a handler
   * ignored its interrupt for a further second (its job is released all the same and its late
   * result dropped). A second call waits for the first.
   *
   * @return whether every job in flight ended within the drain timeout
   * @throws IllegalArgumentException if {@code drainTimeout} is negative or over 24 h
   */
  public boolean shutdown(Duration drainTimeout) {
    dev.fencing.internal.Validate.delay("drainTimeout", drainTimeout);
    return threads.shutdown(drainTimeout);
  }

  /**
   * Configures a {@link FencedRuntime}; {@link #start()} checks every setting. Beside the settings
   * below, it takes those a {@link FencedWorkers} door shares with its queues: {@code owner},
   * {@code receiver}, {@code virtualThreads}, {@code drainTimeout}, {@code onOutcome}, {@code
   * maintenance} and {@code relay}.
   */
  public static final class Builder extends DoorBuilder<Builder> {
    private final JobConsumer queue;
    private @Nullable String queueName;
    private @Nullable OutboxHandler handler;
    private int concurrency = 4;
    private @Nullable Integer prefetch;
    private int batchSize = 100;
    private Duration leaseLength = Duration.ofSeconds(30);
    private @Nullable Duration heartbeatInterval;
    private @Nullable Duration minLeaseLeft;
    private Duration retryDelay = Duration.ofSeconds(10);
    private Duration idleWait = Duration.ofMillis(50);
    private Duration maxCommitDelay = Duration.ofMillis(2);
    private Duration fallbackPoll = Duration.ofSeconds(1);

    private Builder(JobConsumer queue) {
      this.queue = Objects.requireNonNull(queue, "queue");
    }

    @Override
    Builder self() {
      return this;
    }

    /** The queue to claim from: a plain identifier. Required. */
    public Builder queue(String queueName) {
      this.queueName = queueName;
      return this;
    }

    /**
     * Computes each job's result. A handler is required: this one, or an {@link #outboxHandler};
     * the one set last counts.
     */
    public Builder handler(Handler handler) {
      Objects.requireNonNull(handler, "handler");
      this.handler =
          (job, cancellation) -> new HandlerResult(handler.handle(job, cancellation), List.of());
      return this;
    }

    /**
     * Computes each job's result and the outbox messages to commit with it, in the transaction of
     * its compare-and-set (the queue must have an outbox: PostgreSQL). Replaces {@link #handler}.
     */
    public Builder outboxHandler(OutboxHandler handler) {
      this.handler = Objects.requireNonNull(handler, "handler");
      return this;
    }

    /** Handler threads, 1 to 10,000; default 4. */
    public Builder concurrency(int concurrency) {
      this.concurrency = concurrency;
      return this;
    }

    /**
     * Claimed jobs that may wait for a free handler thread, 0 to 10,000; default as many as {@code
     * concurrency}. Waiting jobs are renewed like running ones. A claim holds its slot until its
     * handler is done; its commit does not hold one (up to two batches of results, or as many as
     * there are slots, may wait for their commit while the next claims go out, and handler threads
     * wait to hand over beyond that). For throughput with short handlers raise this to a few
     * batches (see docs/BENCHMARKS.md).
     */
    public Builder prefetch(int prefetch) {
      this.prefetch = prefetch;
      return this;
    }

    /** Most jobs per claim statement and results per commit statement, 1 to 10,000; default 100. */
    public Builder batchSize(int batchSize) {
      this.batchSize = batchSize;
      return this;
    }

    /** The lease of each claim and renewal; default 30 s. */
    public Builder leaseLength(Duration leaseLength) {
      this.leaseLength = leaseLength;
      return this;
    }

    /**
     * How often the leases in flight are renewed (those older than half of it); default a third of
     * the lease.
     */
    public Builder heartbeatInterval(Duration heartbeatInterval) {
      this.heartbeatInterval = heartbeatInterval;
      return this;
    }

    /**
     * The least lease a job must have left to be handed to a handler; default a third of the lease.
     * A job with less is released, claimable at once, without counting an attempt.
     */
    public Builder minLeaseLeft(Duration minLeaseLeft) {
      this.minLeaseLeft = minLeaseLeft;
      return this;
    }

    /** How long a failed job waits before it is claimable again; default 10 s. */
    public Builder retryDelay(Duration retryDelay) {
      this.retryDelay = retryDelay;
      return this;
    }

    /**
     * How long the claimer waits after a claim found nothing, on a queue that does not signal new
     * work ({@link JobConsumer#signalsWork()} false), so its polling interval; also how long it
     * waits for free slots before looking again; default 50 ms.
     */
    public Builder idleWait(Duration idleWait) {
      this.idleWait = idleWait;
      return this;
    }

    /**
     * On a queue that signals new work ({@link JobConsumer#signalsWork()}, PostgreSQL with
     * notifications on), how long the claimer waits at most after a claim found nothing, between
     * zero and 24 h; default 1 s. An enqueue wakes it within milliseconds, but a job whose lease
     * ran out (a crashed worker's) signals nothing, nor does one notified while the queue's
     * listening connection was down: such a job is claimed at the next poll, up to this late.
     */
    public Builder fallbackPoll(Duration fallbackPoll) {
      this.fallbackPoll = fallbackPoll;
      return this;
    }

    /** How long a result waits for others to share its commit statement; default 2 ms. */
    public Builder maxCommitDelay(Duration maxCommitDelay) {
      this.maxCommitDelay = maxCommitDelay;
      return this;
    }

    /**
     * Starts the runtime's threads and returns it running.
     *
     * @throws IllegalArgumentException naming the first setting missing or out of range
     */
    public FencedRuntime start() {
      if (handler == null) {
        throw new IllegalArgumentException("handler must be set, but was null");
      }
      Settings settings =
          new Settings(
              queueName,
              owner,
              concurrency,
              prefetch != null ? prefetch : concurrency,
              batchSize,
              leaseLength,
              heartbeatInterval != null ? heartbeatInterval : third(leaseLength),
              minLeaseLeft != null ? minLeaseLeft : third(leaseLength),
              retryDelay,
              idleWait,
              maxCommitDelay,
              drainTimeout,
              fallbackPoll,
              virtualThreads);
      SidecarThreads sidecarThreads =
          new SidecarThreads(sidecars, settings.owner(), settings.batchSize());
      FencedRuntime runtime =
          new FencedRuntime(
              new Pipeline(settings, queue, receiver, handler, onOutcome), sidecarThreads);
      runtime.threads.start();
      return runtime;
    }

    private static Duration third(@Nullable Duration lease) {
      return lease == null ? Duration.ZERO : lease.dividedBy(3);
    }
  }
}
