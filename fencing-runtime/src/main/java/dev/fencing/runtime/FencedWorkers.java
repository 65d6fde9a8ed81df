package dev.fencing.runtime;

import dev.fencing.JobCodec;
import dev.fencing.JobConsumer;
import dev.fencing.JobType;
import dev.fencing.internal.Validate;
import dev.fencing.schedule.FencedScheduler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * The worker side's one door: every queue of a process with its handler and settings, the recurring
 * schedules, the outbox relay and maintenance, under one lifecycle.
 *
 * <pre>{@code
 * FencedWorkers workers = FencedWorkers.builder(fencing.queue())
 *     .owner("pod-7")
 *     .queue("emails", emailHandler)
 *     .queue("pdf", pdfHandler, q -> q.concurrency(2).leaseLength(Duration.ofMinutes(5)))
 *     .scheduler(FencedScheduler.builder(fencing.schedules()).schedule(nightly).build())
 *     .relay(fencing.outbox(), "mail", mailReceiver)
 *     .maintenance(fencing.maintenance().build(), Duration.ofMinutes(1))
 *     .start();
 * ...
 * workers.shutdown(Duration.ofSeconds(30));   // one drain for all of it
 * }</pre>
 *
 * <p>Each queue has its own claimer, heartbeat, handler threads and commits, set by its {@link
 * QueueSettings}; every job claimed ends in exactly one {@link WorkOutcome}. The scheduler, the
 * relay and maintenance belong to the door, not to any queue, so a producer-only process (no queue)
 * runs them too, and none of them stops when a queue's runtime does. {@link #shutdown} stops the
 * scheduler, then drains every queue at once, then runs the relay's last round (so it sends what
 * the drained commits wrote) and stops maintenance.
 *
 * @since 0.1
 */
public final class FencedWorkers implements AutoCloseable {

  /**
   * Whether handlers run on virtual threads when {@link Builder#virtualThreads(boolean)} is not
   * called: true on Java 24 and later, where a virtual thread blocking inside {@code synchronized}
   * no longer pins its carrier thread (JEP 491); false on Java 21 to 23.
   */
  public static boolean defaultVirtualThreads() {
    return DoorBuilder.virtualThreadsByDefault();
  }

  private final Map<String, QueueRuntime> runtimes;
  private final @Nullable FencedScheduler scheduler;
  private final SidecarThreads sidecars;
  private final Duration drainTimeout;
  private final @Nullable DrainOnShutdown drainOnShutdown;
  private final AtomicBoolean stopped = new AtomicBoolean();
  private volatile boolean drained;

  private FencedWorkers(
      Map<String, QueueRuntime> runtimes,
      @Nullable FencedScheduler scheduler,
      SidecarThreads sidecars,
      Duration drainTimeout,
      String owner,
      @Nullable List<AutoCloseable> closeAfterDrain) {
    this.runtimes = Collections.unmodifiableMap(runtimes);
    this.scheduler = scheduler;
    this.sidecars = sidecars;
    this.drainTimeout = drainTimeout;
    this.drainOnShutdown =
        closeAfterDrain == null
            ? null
            : new DrainOnShutdown(
                owner, this.runtimes, drainTimeout, () -> shutdown(drainTimeout), closeAfterDrain);
  }

  /**
   * Starts configuring the workers of {@code queue} (a backend's, e.g. {@code
   * PostgresFencing.queue()}).
   *
   * @throws NullPointerException if {@code queue} is null
   */
  public static Builder builder(JobConsumer queue) {
    return new Builder(Objects.requireNonNull(queue, "queue"));
  }

  /** Returns the names of the queues these workers run, in the order they were added. */
  public java.util.Set<String> queues() {
    return runtimes.keySet();
  }

  /**
   * Returns the counters of queue {@code queue}.
   *
   * @throws IllegalArgumentException if these workers do not run {@code queue}
   */
  public QueueStats stats(String queue) {
    QueueRuntime runtime = runtimes.get(queue);
    if (runtime == null) {
      throw new IllegalArgumentException(
          "queue must be one of " + runtimes.keySet() + ", but was " + Validate.quote(queue));
    }
    return runtime.stats();
  }

  /** Returns the counters of each queue, in the order the queues were added. */
  public Map<String, QueueStats> stats() {
    Map<String, QueueStats> stats = new LinkedHashMap<>();
    runtimes.forEach((name, runtime) -> stats.put(name, runtime.stats()));
    return stats;
  }

  /**
   * Returns each queue's health, in the order the queues were added: whether its claims or its
   * lease renewals are failing now.
   */
  public Map<String, QueueHealth> health() {
    Map<String, QueueHealth> health = new LinkedHashMap<>();
    runtimes.forEach((name, runtime) -> health.put(name, runtime.health()));
    return health;
  }

  /**
   * Whether every queue is healthy: no queue's latest lease renewal failed without a statement
   * succeeding since (its leases would run out and its work be fenced off), and no queue's claims
   * are failing.
   */
  public boolean healthy() {
    return runtimes.values().stream().allMatch(r -> r.health().healthy());
  }

  /** Returns what maintenance did since start (all zero without {@link Builder#maintenance}). */
  public MaintenanceStats maintenanceStats() {
    return QueueRuntime.maintenanceStats(sidecars.maintenanceLoop);
  }

  /** Returns what the relay did since start (all zero without {@link Builder#relay}). */
  public RelayStats relayStats() {
    return QueueRuntime.relayStats(sidecars.relayLoop);
  }

  /** Stops as {@link #shutdown(Duration)} does, with the configured drain timeout. */
  @Override
  public void close() {
    shutdown(drainTimeout);
  }

  /**
   * Stops everything: the scheduler after its round; every queue at once (stops claiming, releases
   * what has not started, lets running handlers finish within {@code drainTimeout} and commits
   * their results, then cancels and releases the rest); then the relay, after one last round that
   * sends what the drain committed; and maintenance. Returns when all has stopped. A second call
   * waits for the first.
   *
   * @return whether every queue's jobs in flight ended within the drain timeout
   * @throws IllegalArgumentException if {@code drainTimeout} is negative or over 24 h
   */
  public synchronized boolean shutdown(Duration drainTimeout) {
    Validate.delay("drainTimeout", drainTimeout);
    if (!stopped.compareAndSet(false, true)) {
      return drained;
    }
    if (drainOnShutdown != null) {
      drainOnShutdown.unregister();
    }
    if (scheduler != null) {
      scheduler.close();
    }
    sidecars.stopMaintenance();
    Map<String, Boolean> results = new java.util.concurrent.ConcurrentHashMap<>();
    List<Thread> stopping = new ArrayList<>();
    runtimes.forEach(
        (name, runtime) ->
            stopping.add(
                Thread.ofPlatform()
                    .name("fencing-stop-" + name)
                    .start(() -> results.put(name, runtime.shutdown(drainTimeout)))));
    for (Thread t : stopping) {
      Loop.join(t, drainTimeout.plus(Duration.ofMinutes(1)));
    }
    sidecars.stopRelay();
    sidecars.join(Duration.ofSeconds(30));
    drained =
        results.size() == runtimes.size()
            && results.values().stream().allMatch(Boolean::booleanValue);
    return drained;
  }

  /**
   * Configures {@link FencedWorkers}; {@link #start()} checks every setting. Its {@code receiver},
   * {@code virtualThreads}, {@code drainTimeout} and {@code onOutcome} are every queue's, unless
   * the queue's settings say otherwise; its {@code owner} is every queue's; its {@code maintenance}
   * and {@code relay} run beside the queues, with or without any.
   */
  public static final class Builder extends DoorBuilder<Builder> {

    private record QueueSpec(Adapter handler, Consumer<QueueSettings> settings) {}

    private final JobConsumer queue;
    private final Map<String, QueueSpec> queues = new LinkedHashMap<>();
    private @Nullable FencedScheduler scheduler;
    private JobCodec codec = JobCodec.discover();
    private @Nullable List<AutoCloseable> closeAfterDrain;

    private Builder(JobConsumer queue) {
      this.queue = queue;
    }

    @Override
    Builder self() {
      return this;
    }

    /**
     * The codec that decodes the typed handlers' payloads and encodes their results (see {@link
     * JobType}); default {@link JobCodec#discover()}: fencing-jackson's when it is on the class or
     * module path, else JSON text only.
     *
     * @throws NullPointerException if {@code codec} is null
     * @since 0.1
     */
    public Builder codec(JobCodec codec) {
      this.codec = Objects.requireNonNull(codec, "codec");
      return this;
    }

    /**
     * Runs {@code handler} on the jobs of {@code type}'s queue with the defaults (4 handler
     * threads, a 30 s lease, ...): each payload decoded as the type's payload, each result encoded
     * as its result, with the {@link #codec}. A payload that does not decode ends its job failed at
     * once, with the decoder's message as its last error, and is counted as failed; the worker goes
     * on.
     *
     * @throws NullPointerException if {@code type} or {@code handler} is null
     * @throws IllegalArgumentException if the type's queue was added before
     * @since 0.1
     */
    public <P, R> Builder queue(JobType<P, R> type, Handler<P, R> handler) {
      return queue(type, handler, settings -> {});
    }

    /**
     * Runs {@code handler} on the jobs of {@code type}'s queue as {@link #queue(JobType, Handler)}
     * does, with {@code settings} applied to the queue's {@link QueueSettings} (concurrency, lease
     * length, batch size, retry delay, ...).
     *
     * @throws NullPointerException if {@code type}, {@code handler} or {@code settings} is null
     * @throws IllegalArgumentException if the type's queue was added before
     * @since 0.1
     */
    public <P, R> Builder queue(
        JobType<P, R> type, Handler<P, R> handler, Consumer<QueueSettings> settings) {
      Objects.requireNonNull(type, "type");
      Objects.requireNonNull(handler, "handler");
      Objects.requireNonNull(settings, "settings");
      return add(type.queue(), new Typed<>(type, handler), settings);
    }

    /**
     * Runs {@code handler} on queue {@code name}, its payloads and results JSON text as stored:
     * {@code queue(JobType.raw(name), handler)}.
     *
     * @throws NullPointerException if {@code handler} is null
     * @throws IllegalArgumentException if {@code name} is not a plain identifier or was added
     *     before
     */
    public Builder queue(String name, Handler<String, String> handler) {
      return queue(JobType.raw(name), handler);
    }

    /**
     * Runs {@code handler} on queue {@code name}, its payloads and results JSON text as stored,
     * with {@code settings}: {@code queue(JobType.raw(name), handler, settings)}.
     *
     * @throws NullPointerException if {@code handler} or {@code settings} is null
     * @throws IllegalArgumentException if {@code name} is not a plain identifier or was added
     *     before
     */
    public Builder queue(
        String name, Handler<String, String> handler, Consumer<QueueSettings> settings) {
      return queue(JobType.raw(name), handler, settings);
    }

    /**
     * Runs {@code handler}, whose results carry outbox messages, on queue {@code name}; see {@link
     * #queue(String, Handler, Consumer)}.
     *
     * @throws NullPointerException if {@code handler} or {@code settings} is null
     * @throws IllegalArgumentException if {@code name} was added before
     */
    public Builder outboxQueue(
        String name, OutboxHandler handler, Consumer<QueueSettings> settings) {
      Objects.requireNonNull(handler, "handler");
      Objects.requireNonNull(settings, "settings");
      return add(name, (codec) -> handler, settings);
    }

    /**
     * Runs {@code handler}, whose results carry outbox messages, on queue {@code name} with the
     * defaults; see {@link #queue(String, Handler)}.
     *
     * @throws NullPointerException if {@code handler} is null
     * @throws IllegalArgumentException if {@code name} was added before
     */
    public Builder outboxQueue(String name, OutboxHandler handler) {
      return outboxQueue(name, handler, settings -> {});
    }

    /** A typed handler, adapted to the runtime's own once the door's codec is known. */
    private record Typed<P, R>(JobType<P, R> type, Handler<P, R> handler) implements Adapter {
      @Override
      public OutboxHandler adapt(JobCodec codec) {
        return TypedHandlers.adapt(type, handler, codec);
      }
    }

    /** Makes a queue's handler for the door's codec. */
    @FunctionalInterface
    private interface Adapter {
      OutboxHandler adapt(JobCodec codec);
    }

    private Builder add(String name, Adapter handler, Consumer<QueueSettings> settings) {
      Validate.identifier("queue", name);
      if (queues.putIfAbsent(name, new QueueSpec(handler, settings)) != null) {
        throw new IllegalArgumentException(
            "queue must be added once, but " + Validate.quote(name) + " was added twice");
      }
      return this;
    }

    /**
     * Runs {@code scheduler} (recurring jobs, fencing-schedule) from {@link #start()} to {@link
     * FencedWorkers#shutdown}; it must not have been started. Optional.
     *
     * @throws NullPointerException if {@code scheduler} is null
     */
    public Builder scheduler(FencedScheduler scheduler) {
      this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
      return this;
    }

    /**
     * Drains on the JVM's own shutdown ({@code SIGTERM}, Ctrl-C, {@code System.exit}, the last
     * non-daemon thread ending): {@link #start()} registers one shutdown hook that calls {@link
     * FencedWorkers#shutdown} with the drain timeout, logs at INFO the jobs in flight before and
     * what the drain did after, and only then closes {@code thenClose} in order (the {@code
     * PostgresFencing} handle, then the {@code DataSource}). Pass what the drain needs and close it
     * in no shutdown hook of your own: the JVM runs its hooks all at once, so a pool closed by
     * another hook fails the drain's commits and releases. A {@code shutdown} or {@code close}
     * called first takes the hook off and closes none of them. Default: no hook (the process's
     * owner decides; Spring stops the workers through its own lifecycle).
     *
     * @throws NullPointerException if {@code thenClose} or one of its elements is null
     */
    public Builder drainOnShutdown(AutoCloseable... thenClose) {
      this.closeAfterDrain = List.of(thenClose);
      return this;
    }

    /**
     * Starts every queue's runtime, the scheduler, the relay and maintenance, and returns them
     * running. If one fails to start, those started are stopped before the exception is thrown.
     *
     * @throws IllegalArgumentException naming the first setting missing or out of range (a queue's
     *     as {@code queue 'name': ...})
     */
    public FencedWorkers start() {
      Validate.delay("drainTimeout", drainTimeout);
      if (owner == null) {
        throw new IllegalArgumentException("owner must be set, but was null");
      }
      // up to 100 messages per call, as a runtime's relay with its default batch size
      SidecarThreads sidecarThreads = new SidecarThreads(sidecars, owner, 100);
      Map<String, QueueRuntime> started = new LinkedHashMap<>();
      try {
        for (Map.Entry<String, QueueSpec> q : queues.entrySet()) {
          started.put(q.getKey(), startQueue(q.getKey(), q.getValue()));
        }
        sidecarThreads.start();
        if (scheduler != null) {
          scheduler.start();
        }
      } catch (RuntimeException e) {
        started.values().forEach(r -> r.shutdown(Duration.ZERO));
        sidecarThreads.stopMaintenance();
        sidecarThreads.stopRelay();
        throw e;
      }
      FencedWorkers workers =
          new FencedWorkers(
              started, scheduler, sidecarThreads, drainTimeout, owner, closeAfterDrain);
      if (workers.drainOnShutdown != null) {
        workers.drainOnShutdown.register();
      }
      return workers;
    }

    private QueueRuntime startQueue(String name, QueueSpec spec) {
      QueueRuntime.Builder b =
          QueueRuntime.builder(queue)
              .drainTimeout(drainTimeout)
              .onOutcome(onOutcome)
              .virtualThreads(virtualThreads);
      if (receiver != null) {
        b.receiver(receiver);
      }
      spec.settings().accept(new QueueSettings(b));
      b.queue(name).owner(owner).outboxHandler(spec.handler().adapt(codec));
      try {
        return b.start();
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            "queue " + Validate.quote(name) + ": " + e.getMessage(), e);
      }
    }
  }
}
