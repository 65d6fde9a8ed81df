package dev.fencing.spring.internal;

import dev.fencing.FencedQueue;
import dev.fencing.FencedReceiver;
import dev.fencing.JobCodec;
import dev.fencing.micrometer.FencingMetrics;
import dev.fencing.micrometer.RuntimeMetrics;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.runtime.FencedWorkers;
import dev.fencing.runtime.QueueSettings;
import dev.fencing.runtime.QueueStats;
import dev.fencing.spring.FencingProperties;
import dev.fencing.spring.ManagedWorkers;
import dev.fencing.spring.OutboxRelay;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.context.SmartLifecycle;

/**
 * Runs the worker door ({@link FencedWorkers}) from the context's start to its close: a runtime per
 * queue with a handler bean, the schedules, the outbox relays and maintenance. Its phase is below
 * the web server's, so it starts before the server takes requests and stops after the server has
 * finished them; the data source closes only after every lifecycle bean has stopped, and {@link
 * #stop()} returns only when the door has drained (or its drain timeout passed and it released what
 * was left) and the {@link PostgresFencing} handle has given back its listening connection.
 */
final class Workers implements ManagedWorkers, SmartLifecycle {

  // Spring's logging, not System.Logger: Spring Boot disconnects java.util.logging (where
  // System.Logger goes) from its own logging when the context starts to close, before the
  // lifecycle stops, so a line logged during stop() through it was never seen
  private static final Log LOG = LogFactory.getLog(Workers.class);

  /** Below the web server's graceful shutdown ({@code DEFAULT_PHASE - 1024}) and stop (- 2048). */
  static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 4096;

  private final FencedQueue queue;
  private final PostgresFencing fencing;
  private final FencingProperties properties;
  private final Meters meters;
  private final ListableBeanFactory beans;
  private final boolean virtualThreads;
  private final JobCodec codec;
  private final String owner;
  private volatile dev.fencing.runtime.@Nullable FencedWorkers door;
  private List<RuntimeMetrics> runtimeMeters = List.of();
  private boolean stopped;

  Workers(
      FencedQueue queue,
      PostgresFencing fencing,
      FencingProperties properties,
      Meters meters,
      ListableBeanFactory beans,
      boolean virtualThreads,
      JobCodec codec) {
    this.queue = queue;
    this.fencing = fencing;
    this.properties = properties;
    this.meters = meters;
    this.beans = beans;
    this.virtualThreads = virtualThreads;
    this.codec = codec;
    this.owner = properties.ownerOrDefault();
  }

  @Override
  public String owner() {
    return owner;
  }

  @Override
  public Optional<FencedWorkers> running() {
    return Optional.ofNullable(door);
  }

  /**
   * Starts the door: a runtime per queue with a handler bean, the scheduler, the relays and
   * maintenance.
   *
   * @throws IllegalStateException if the context is started again after a stop (the stop closed the
   *     {@link PostgresFencing} handle's listening, so the workers do not restart), if two handler
   *     beans name one queue or two relay beans one destination, if {@code fencing.receiver} names
   *     no receiver bean, or if {@code fencing.schedules} is set without fencing-schedule on the
   *     class path
   */
  @Override
  public synchronized void start() {
    if (door != null) {
      return;
    }
    if (stopped) {
      throw new IllegalStateException(
          "the fencing workers of owner " + owner + " were stopped and do not restart");
    }
    Map<String, HandlerBeans.Queue> handlers = HandlerBeans.byQueue(beans);
    TreeSet<String> watched = new TreeSet<>(properties.queues().keySet());
    watched.addAll(handlers.keySet());
    FencingMetrics metrics = meters.watch(queue, watched);
    FencedWorkers.Builder b =
        FencedWorkers.builder(queue)
            .owner(owner)
            .codec(codec)
            .virtualThreads(virtualThreads)
            .drainTimeout(properties.drainTimeout());
    FencedReceiver receiver = receiver();
    if (receiver != null) {
      b.receiver(meters.receiver(receiver));
    }
    Map<String, RuntimeMetrics> byQueue = new LinkedHashMap<>();
    handlers.forEach(
        (name, handler) -> {
          RuntimeMetrics m = Meters.runtime(metrics, name);
          if (m != null) {
            byQueue.put(name, m);
          }
          handler.addTo(b, name, settings(name, m));
        });
    FencingProperties.Maintenance m = properties.maintenance();
    if (m.enabled()) {
      b.maintenance(
          fencing
              .maintenance()
              .keepFinished(m.keepFinished())
              .archive(m.archive())
              .batchSize(m.batchSize())
              .vacuumEvery(m.vacuumEvery())
              .build(),
          m.every());
    }
    List<String> relays = relays(b);
    List<String> schedules = schedules(b);
    FencedWorkers started = b.start();
    byQueue.forEach((name, meter) -> meter.bind(started, name));
    if (metrics != null) {
      metrics.workers(started);
    }
    runtimeMeters = List.copyOf(byQueue.values());
    door = started;
    LOG.info(
        "fencing: owner "
            + owner
            + " runs queues "
            + handlers.keySet()
            + " in schema "
            + fencing.schema()
            + (virtualThreads ? ", handlers on virtual threads" : "")
            + (schedules.isEmpty() ? "" : ", schedules " + schedules)
            + (relays.isEmpty() ? "" : ", relays " + relays)
            + (m.enabled() ? ", maintenance every " + m.every() : ""));
  }

  /** The settings of queue {@code name}'s runtime: those its properties set, and its meters. */
  private Consumer<QueueSettings> settings(String name, @Nullable RuntimeMetrics meter) {
    FencingProperties.Queue q = properties.queue(name);
    return b -> {
      ifSet(q.concurrency(), b::concurrency);
      ifSet(q.lease(), b::leaseLength);
      ifSet(q.heartbeat(), b::heartbeatInterval);
      ifSet(q.batchSize(), b::batchSize);
      ifSet(q.prefetch(), b::prefetch);
      ifSet(q.retryDelay(), b::retryDelay);
      ifSet(q.minLeaseLeft(), b::minLeaseLeft);
      ifSet(meter, b::onOutcome);
    };
  }

  /** Passes {@code value} to {@code setter} when it is set: else the runtime's default holds. */
  private static <T> void ifSet(@Nullable T value, Consumer<T> setter) {
    if (value != null) {
      setter.accept(value);
    }
  }

  /** The receiver bean {@code fencing.receiver} names, or null when it is unset. */
  private @Nullable FencedReceiver receiver() {
    String name = properties.receiver();
    if (name == null) {
      return null;
    }
    try {
      return beans.getBean(name, FencedReceiver.class);
    } catch (BeansException e) {
      // no cause: Spring reports the root cause's message, which would not name the property
      throw new IllegalStateException(
          "fencing.receiver must name a FencedReceiver bean, but was '"
              + name
              + "'; the FencedReceiver beans are "
              + List.of(beans.getBeanNamesForType(FencedReceiver.class)));
    }
  }

  /** Adds a relay per {@link OutboxRelay} bean to {@code b}; returns their destinations. */
  private List<String> relays(FencedWorkers.Builder b) {
    Map<String, String> beanOf = new TreeMap<>();
    beans
        .getBeansOfType(OutboxRelay.class)
        .forEach(
            (bean, relay) -> {
              String other = beanOf.putIfAbsent(relay.destination(), bean);
              if (other != null) {
                throw new IllegalStateException(
                    "destination '"
                        + relay.destination()
                        + "' must have one OutboxRelay bean, but had two: '"
                        + other
                        + "' and '"
                        + bean
                        + "'");
              }
              switch (relay) {
                case OutboxRelay.ToReceiver r ->
                    b.relay(fencing.outbox(), r.destination(), meters.receiver(r.receiver()));
                case OutboxRelay.ToSender s ->
                    b.relay(fencing.outbox(), s.destination(), s.sender());
              }
            });
    return List.copyOf(beanOf.keySet());
  }

  /** Hands the scheduler, if any, to {@code b}; returns the names of its schedules. */
  private List<String> schedules(FencedWorkers.Builder b) {
    Scheduling s = beans.getBeanProvider(Scheduling.class).getIfAvailable();
    if (s == null) {
      if (!properties.schedules().isEmpty()) {
        throw new IllegalStateException(
            "fencing.schedules sets "
                + properties.schedules().keySet()
                + ", but fencing-schedule is not on the class path: add the dependency"
                + " dev.fencing:fencing-schedule");
      }
      return List.of();
    }
    s.addTo(b);
    return s.names();
  }

  /**
   * Stops the door: the scheduler first, then every queue at once (each stops claiming, releases
   * what has not started, lets its handlers finish within {@code fencing.drain-timeout}, commits
   * their results, then cancels and releases the rest), then the relays after a last round, and
   * maintenance. Then closes the {@link PostgresFencing} handle, which gives back its listening
   * connection, and logs one line saying what the drain did. Returns when all is done.
   */
  @Override
  public synchronized void stop() {
    FencedWorkers stopping = door;
    door = null;
    stopped = true;
    long start = System.nanoTime();
    Map<String, QueueStats> before = stopping == null ? Map.of() : stopping.stats();
    if (stopping != null && !stopping.shutdown(properties.drainTimeout())) {
      LOG.warn(
          "fencing: queues "
              + before.keySet()
              + " did not all drain within "
              + properties.drainTimeout()
              + "; their handlers still running were cancelled and their jobs released");
    }
    runtimeMeters.forEach(RuntimeMetrics::close);
    fencing.close();
    LOG.info(drained(stopping, before, System.nanoTime() - start));
  }

  /** The line that says what the drain of {@code stopped} did in {@code nanos}. */
  private String drained(
      dev.fencing.runtime.@Nullable FencedWorkers stopped,
      Map<String, QueueStats> before,
      long nanos) {
    long completed = 0;
    long released = 0;
    long failed = 0;
    Map<String, QueueStats> after = stopped == null ? Map.of() : stopped.stats();
    for (Map.Entry<String, QueueStats> e : after.entrySet()) {
      QueueStats b = before.get(e.getKey());
      QueueStats a = e.getValue();
      completed += a.completed() - b.completed();
      released += a.released() - b.released();
      failed += a.failed() - b.failed();
    }
    return "fencing: owner "
        + owner
        + " drained "
        + after.size()
        + (after.size() == 1 ? " queue " : " queues ")
        + after.keySet()
        + " in "
        + TimeUnit.NANOSECONDS.toMillis(nanos)
        + " ms: "
        + completed
        + " jobs completed, "
        + released
        + " released, "
        + failed
        + " failed during the drain; the listening connection is closed";
  }

  @Override
  public boolean isRunning() {
    return door != null;
  }

  @Override
  public int getPhase() {
    return PHASE;
  }
}
