package dev.fencing.spring.internal;

import dev.fencing.FencedQueue;
import dev.fencing.internal.Validate;
import dev.fencing.micrometer.FencingMetrics;
import dev.fencing.micrometer.RuntimeMetrics;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.runtime.FencedRuntime;
import dev.fencing.spring.FencedWorkers;
import dev.fencing.spring.FencingProperties;
import dev.fencing.spring.QueueHandler;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.context.SmartLifecycle;

/**
 * Runs one {@link FencedRuntime} per queue with a {@link QueueHandler} bean, from the context's
 * start to its close. Its phase is below the web server's, so it starts before the server takes
 * requests and stops after the server has finished them; the data source closes only after every
 * lifecycle bean has stopped, and {@link #stop()} returns only when each runtime has drained (or
 * its drain timeout passed and it released what was left) and the {@link PostgresFencing} handle
 * has given back its listening connection.
 */
final class Workers implements FencedWorkers, SmartLifecycle {

  // Spring's logging, not System.Logger: Spring Boot disconnects java.util.logging (where
  // System.Logger goes) from its own logging when the context starts to close, before the
  // lifecycle stops, so a line logged during stop() through it was never seen
  private static final Log LOG = LogFactory.getLog(Workers.class);

  /** Below the web server's graceful shutdown ({@code DEFAULT_PHASE - 1024}) and stop (- 2048). */
  static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 4096;

  /** One queue's runtime, what watches its renewals, and its meters. */
  record Running(FencedRuntime runtime, RenewalWatch watch, @Nullable RuntimeMetrics meters) {}

  private final FencedQueue queue;
  private final PostgresFencing fencing;
  private final FencingProperties properties;
  private final Meters meters;
  private final ListableBeanFactory beans;
  private final boolean virtualThreads;
  private final String owner;
  private volatile Map<String, Running> running = Map.of();
  private boolean stopped;

  Workers(
      FencedQueue queue,
      PostgresFencing fencing,
      FencingProperties properties,
      Meters meters,
      ListableBeanFactory beans,
      boolean virtualThreads) {
    this.queue = queue;
    this.fencing = fencing;
    this.properties = properties;
    this.meters = meters;
    this.beans = beans;
    this.virtualThreads = virtualThreads;
    this.owner = properties.ownerOrDefault();
  }

  @Override
  public String owner() {
    return owner;
  }

  @Override
  public Map<String, FencedRuntime> runtimes() {
    Map<String, FencedRuntime> runtimes = new LinkedHashMap<>();
    running.forEach((name, r) -> runtimes.put(name, r.runtime()));
    return Collections.unmodifiableMap(runtimes);
  }

  /** Returns the running queues with their renewal watches. */
  Map<String, Running> running() {
    return running;
  }

  /** Returns the queues to report on: those with a runtime and those configured. */
  TreeSet<String> queueNames() {
    TreeSet<String> names = new TreeSet<>(properties.queues().keySet());
    names.addAll(running.keySet());
    return names;
  }

  /**
   * Starts a runtime per queue with a handler.
   *
   * @throws IllegalStateException if the context is started again after a stop: the stop closed the
   *     {@link PostgresFencing} handle's listening, so the workers do not restart
   */
  @Override
  public synchronized void start() {
    if (!running.isEmpty()) {
      return;
    }
    if (stopped) {
      throw new IllegalStateException(
          "the fencing workers of owner " + owner + " were stopped and do not restart");
    }
    Map<String, QueueHandler> handlers = handlersByQueue();
    TreeSet<String> watched = new TreeSet<>(properties.queues().keySet());
    watched.addAll(handlers.keySet());
    FencingMetrics metrics = meters.watch(queue, watched);
    Map<String, Running> started = new LinkedHashMap<>();
    boolean maintenance = properties.maintenance().enabled();
    try {
      for (Map.Entry<String, QueueHandler> e : handlers.entrySet()) {
        started.put(
            e.getKey(), start(e.getKey(), e.getValue(), metrics, maintenance && started.isEmpty()));
      }
    } catch (RuntimeException e) {
      stopAll(started);
      throw e;
    }
    running = Collections.unmodifiableMap(started);
    LOG.info(
        "fencing: owner "
            + owner
            + " runs queues "
            + started.keySet()
            + " in schema "
            + fencing.schema()
            + (virtualThreads ? ", handlers on virtual threads" : ""));
  }

  private Running start(
      String name, QueueHandler handler, @Nullable FencingMetrics metrics, boolean maintenance) {
    FencingProperties.Queue q = properties.queue(name);
    RenewalWatch watch = new RenewalWatch();
    FencedRuntime.Builder b =
        FencedRuntime.builder(watch.watch(queue))
            .queue(name)
            .owner(owner)
            .handler(handler)
            .virtualThreads(virtualThreads)
            .drainTimeout(properties.drainTimeout());
    ifSet(q.concurrency(), b::concurrency);
    ifSet(q.lease(), b::leaseLength);
    ifSet(q.heartbeat(), b::heartbeatInterval);
    ifSet(q.batchSize(), b::batchSize);
    ifSet(q.prefetch(), b::prefetch);
    ifSet(q.retryDelay(), b::retryDelay);
    ifSet(q.minLeaseLeft(), b::minLeaseLeft);
    if (maintenance) {
      FencingProperties.Maintenance m = properties.maintenance();
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
    RuntimeMetrics runtimeMeters = Meters.runtime(metrics, name);
    if (runtimeMeters != null) {
      b.onOutcome(runtimeMeters);
    }
    FencedRuntime runtime;
    try {
      runtime = b.start();
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("fencing.queues." + name + ": " + e.getMessage(), e);
    }
    if (runtimeMeters != null) {
      runtimeMeters.bind(runtime);
    }
    return new Running(runtime, watch, runtimeMeters);
  }

  /** Passes {@code value} to {@code setter} when it is set: else the runtime's default holds. */
  private static <T> void ifSet(@Nullable T value, Consumer<T> setter) {
    if (value != null) {
      setter.accept(value);
    }
  }

  private Map<String, QueueHandler> handlersByQueue() {
    Map<String, QueueHandler> byQueue = new TreeMap<>();
    Map<String, String> beanOf = new TreeMap<>();
    for (Map.Entry<String, QueueHandler> e : beans.getBeansOfType(QueueHandler.class).entrySet()) {
      String name =
          Validate.identifier(
              "queue() of the QueueHandler bean '" + e.getKey() + "'", e.getValue().queue());
      String other = beanOf.putIfAbsent(name, e.getKey());
      if (other != null) {
        throw new IllegalStateException(
            "queue '"
                + name
                + "' must have one QueueHandler bean, but had two: '"
                + other
                + "' and '"
                + e.getKey()
                + "'");
      }
      byQueue.put(name, e.getValue());
    }
    return byQueue;
  }

  /**
   * Stops every runtime at once: each stops claiming, releases what has not started, lets its
   * handlers finish within {@code fencing.drain-timeout}, commits their results, then cancels and
   * releases the rest. Then closes the {@link PostgresFencing} handle, which gives back its
   * listening connection, and logs one line saying what the drain did. Returns when all is done.
   */
  @Override
  public synchronized void stop() {
    Map<String, Running> stopping = running;
    running = Map.of();
    stopped = true;
    long start = System.nanoTime();
    Map<String, FencedRuntime.Stats> before = new LinkedHashMap<>();
    stopping.forEach((name, r) -> before.put(name, r.runtime().stats()));
    stopAll(stopping);
    fencing.close();
    LOG.info(drained(stopping, before, System.nanoTime() - start));
  }

  /** The line that says what the drain of {@code stopped} did in {@code nanos}. */
  private String drained(
      Map<String, Running> stopped, Map<String, FencedRuntime.Stats> before, long nanos) {
    long completed = 0;
    long released = 0;
    long failed = 0;
    for (Map.Entry<String, Running> e : stopped.entrySet()) {
      FencedRuntime.Stats b = before.get(e.getKey());
      FencedRuntime.Stats a = e.getValue().runtime().stats();
      completed += a.completed() - b.completed();
      released += a.released() - b.released();
      failed += a.failed() - b.failed();
    }
    return "fencing: owner "
        + owner
        + " drained "
        + stopped.size()
        + (stopped.size() == 1 ? " runtime " : " runtimes ")
        + stopped.keySet()
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

  private void stopAll(Map<String, Running> stopping) {
    List<Thread> threads = new ArrayList<>();
    for (Map.Entry<String, Running> e : stopping.entrySet()) {
      threads.add(
          Thread.ofPlatform()
              .name("fencing-stop-" + e.getKey())
              .start(() -> stop(e.getKey(), e.getValue())));
    }
    for (Thread t : threads) {
      try {
        t.join();
      } catch (InterruptedException ex) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  private void stop(String name, Running r) {
    boolean drained = r.runtime().shutdown(properties.drainTimeout());
    if (!drained) {
      LOG.warn(
          "fencing: queue "
              + name
              + " did not drain within "
              + properties.drainTimeout()
              + "; its handlers still running were cancelled and their jobs released");
    }
    if (r.meters() != null) {
      r.meters().close();
    }
  }

  @Override
  public boolean isRunning() {
    return !running.isEmpty();
  }

  @Override
  public int getPhase() {
    return PHASE;
  }
}
