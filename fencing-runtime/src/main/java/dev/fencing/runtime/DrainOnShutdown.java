package dev.fencing.runtime;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.ToLongFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The JVM shutdown hook of {@link FencedWorkers.Builder#drainOnShutdown}: drains the door, then
 * closes what the drain needed, in order, so that no other hook can close them under it (the JVM
 * runs its hooks all at once). Logs the drain at INFO, before and after.
 */
final class DrainOnShutdown {

  // SLF4J, never System.Logger: its default backend, java.util.logging, closes its handlers in a
  // shutdown hook of its own, run at the same time as this one, and the drain's lines were lost
  private static final Logger LOG = LoggerFactory.getLogger(Pipeline.LOGGER);

  private final String owner;
  private final Map<String, QueueRuntime> runtimes;
  private final Duration drainTimeout;
  private final BooleanSupplier drain;
  private final List<AutoCloseable> thenClose;
  private final Thread hook =
      Thread.ofPlatform().name("fencing-drain-on-shutdown").unstarted(this::run);

  /**
   * @param drain the door's shutdown with {@code drainTimeout}, returning whether it drained
   */
  DrainOnShutdown(
      String owner,
      Map<String, QueueRuntime> runtimes,
      Duration drainTimeout,
      BooleanSupplier drain,
      List<AutoCloseable> thenClose) {
    this.owner = owner;
    this.runtimes = runtimes;
    this.drainTimeout = drainTimeout;
    this.drain = drain;
    this.thenClose = thenClose;
  }

  void register() {
    Runtime.getRuntime().addShutdownHook(hook);
  }

  /** Takes the hook off, unless the JVM is running it already (or this is it). */
  void unregister() {
    if (Thread.currentThread() == hook) {
      return;
    }
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException e) {
      // the JVM is shutting down: the hook runs, and its drain waits for this one
    }
  }

  private void run() {
    long start = System.nanoTime();
    long completed = sum(QueueStats::completed);
    long released = sum(QueueStats::released);
    long failed = sum(QueueStats::failed);
    LOG.info(
        "fencing: owner {}: the JVM is shutting down; draining {} jobs in flight on {} (drain"
            + " timeout {})",
        owner,
        sum(QueueStats::inFlight),
        runtimes.keySet(),
        drainTimeout);
    boolean drained = drain.getAsBoolean();
    String line =
        "fencing: owner {} drained {} in {} ms: {} jobs completed, {} released, {} failed during"
            + " the drain"
            + (drained
                ? ""
                : "; the drain timeout passed: the handlers still running were cancelled and"
                    + " their jobs released");
    Object[] values = {
      owner,
      runtimes.keySet(),
      TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start),
      sum(QueueStats::completed) - completed,
      sum(QueueStats::released) - released,
      sum(QueueStats::failed) - failed
    };
    if (drained) {
      LOG.info(line, values);
    } else {
      LOG.warn(line, values);
    }
    for (AutoCloseable resource : thenClose) {
      try {
        resource.close();
      } catch (Exception e) {
        LOG.warn("fencing: closing {} after the drain failed", resource, e);
      }
    }
  }

  private long sum(ToLongFunction<QueueStats> count) {
    return runtimes.values().stream().mapToLong(r -> count.applyAsLong(r.stats())).sum();
  }
}
