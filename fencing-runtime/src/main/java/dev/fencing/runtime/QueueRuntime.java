package dev.fencing.runtime;

import dev.fencing.FencedReceiver;
import dev.fencing.JobCodec;
import dev.fencing.JobConsumer;
import dev.fencing.JobType;
import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One queue's runtime inside {@link FencedWorkers}: its claimer, heartbeat, handler threads,
 * deliveries, batched commits and shutdown, in the order that keeps a zombie harmless.
 *
 * <p>A claimer thread claims in batches, only as many jobs as there are free slots ({@code
 * concurrency + prefetch}; a job's slot is free again once its handler is done, so claims go out
 * while the last results are committed). Each job runs on one of {@code concurrency} handler
 * threads; its result is delivered to the receiver, if there is one, with the job's id and epoch,
 * then committed with other results in one compare-and-set statement, together with their outbox
 * messages. A heartbeat renews every {@code heartbeatInterval} each lease in flight taken or last
 * renewed more than half an interval ago; a lease that is lost, or that could not be renewed before
 * it ran out by this worker's clock, cancels its handler and its result is neither delivered nor
 * committed. No job is handed to a handler with less than {@code minLeaseLeft} of its lease left.
 * Every job claimed ends in exactly one {@link WorkOutcome}.
 */
final class QueueRuntime implements AutoCloseable {

  private final Pipeline pipeline;
  private final SidecarThreads sidecars;
  private final RuntimeThreads threads;

  private QueueRuntime(Pipeline pipeline, SidecarThreads sidecars) {
    this.pipeline = pipeline;
    this.sidecars = sidecars;
    this.threads = new RuntimeThreads(pipeline, sidecars);
  }

  /**
   * Starts configuring a runtime that claims from {@code queue} and commits there, with no receiver
   * (see {@link Builder#receiver(FencedReceiver)}).
   *
   * @throws NullPointerException if {@code queue} is null
   */
  static Builder builder(JobConsumer queue) {
    return new Builder(queue);
  }

  /**
   * Starts configuring a runtime that claims from {@code queue} and delivers to {@code receiver}:
   * {@code builder(queue).receiver(receiver)}.
   *
   * @throws NullPointerException if either is null
   */
  static Builder builder(JobConsumer queue, FencedReceiver receiver) {
    return new Builder(queue).receiver(receiver);
  }

  /** Returns the counters so far. */
  QueueStats stats() {
    Counters c = pipeline.counters;
    return new QueueStats(
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

  /** Returns whether the runtime can do its work now; see {@link QueueHealth}. */
  QueueHealth health() {
    return new QueueHealth(
        pipeline.renewalsFailing(),
        pipeline.claimsFailing,
        java.util.Optional.ofNullable(pipeline.lastFailure));
  }

  /** Returns what the runtime's maintenance did so far. */
  MaintenanceStats maintenanceStats() {
    return maintenanceStats(sidecars.maintenanceLoop);
  }

  /** Returns what the runtime's relay did so far. */
  RelayStats relayStats() {
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
  boolean shutdown(Duration drainTimeout) {
    dev.fencing.internal.Validate.delay("drainTimeout", drainTimeout);
    return threads.shutdown(drainTimeout);
  }

  /**
   * Configures a {@link QueueRuntime}; {@link #start()} checks every setting. Beside the settings
   * below, it takes those a {@link FencedWorkers} door shares with its queues: {@code owner},
   * {@code receiver}, {@code virtualThreads}, {@code drainTimeout}, {@code onOutcome}, {@code
   * maintenance} and {@code relay}.
   */
  static final class Builder extends DoorBuilder<Builder> {
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
    Builder queue(String queueName) {
      this.queueName = queueName;
      return this;
    }

    /**
     * Computes each job's result. A handler is required: this one, or an {@link #outboxHandler};
     * the one set last counts.
     */
    Builder handler(Handler<String, String> handler) {
      Objects.requireNonNull(handler, "handler");
      this.handler = TypedHandlers.adapt(JobType.raw("raw"), handler, JobCodec.rawJson());
      return this;
    }

    /**
     * Computes each job's result and the outbox messages to commit with it, in the transaction of
     * its compare-and-set (the queue must have an outbox: PostgreSQL). Replaces {@link #handler}.
     */
    Builder outboxHandler(OutboxHandler handler) {
      this.handler = Objects.requireNonNull(handler, "handler");
      return this;
    }

    /** See {@link QueueSettings#concurrency}. */
    Builder concurrency(int concurrency) {
      this.concurrency = concurrency;
      return this;
    }

    /** See {@link QueueSettings#prefetch}. */
    Builder prefetch(int prefetch) {
      this.prefetch = prefetch;
      return this;
    }

    /** See {@link QueueSettings#batchSize}. */
    Builder batchSize(int batchSize) {
      this.batchSize = batchSize;
      return this;
    }

    /** See {@link QueueSettings#leaseLength}. */
    Builder leaseLength(Duration leaseLength) {
      this.leaseLength = leaseLength;
      return this;
    }

    /** See {@link QueueSettings#heartbeatInterval}. */
    Builder heartbeatInterval(Duration heartbeatInterval) {
      this.heartbeatInterval = heartbeatInterval;
      return this;
    }

    /** See {@link QueueSettings#minLeaseLeft}. */
    Builder minLeaseLeft(Duration minLeaseLeft) {
      this.minLeaseLeft = minLeaseLeft;
      return this;
    }

    /** See {@link QueueSettings#retryDelay}. */
    Builder retryDelay(Duration retryDelay) {
      this.retryDelay = retryDelay;
      return this;
    }

    /** See {@link QueueSettings#idleWait}. */
    Builder idleWait(Duration idleWait) {
      this.idleWait = idleWait;
      return this;
    }

    /** See {@link QueueSettings#fallbackPoll}. */
    Builder fallbackPoll(Duration fallbackPoll) {
      this.fallbackPoll = fallbackPoll;
      return this;
    }

    /** See {@link QueueSettings#maxCommitDelay}. */
    Builder maxCommitDelay(Duration maxCommitDelay) {
      this.maxCommitDelay = maxCommitDelay;
      return this;
    }

    /**
     * Starts the runtime's threads and returns it running.
     *
     * @throws IllegalArgumentException naming the first setting missing or out of range
     */
    public QueueRuntime start() {
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
      QueueRuntime runtime =
          new QueueRuntime(
              new Pipeline(settings, queue, receiver, handler, onOutcome), sidecarThreads);
      runtime.threads.start();
      return runtime;
    }

    private static Duration third(@Nullable Duration lease) {
      return lease == null ? Duration.ZERO : lease.dividedBy(3);
    }
  }
}
