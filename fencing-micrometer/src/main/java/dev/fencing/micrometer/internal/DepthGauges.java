package dev.fencing.micrometer.internal;

import dev.fencing.FencedQueue;
import dev.fencing.QueueDepth;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.ToLongFunction;
import org.jspecify.annotations.Nullable;

/**
 * Gauges of one queue's depth by state, read through {@link FencedQueue#depth} at most once per
 * refresh interval (on the registry's clock), however often they are scraped. A scrape that finds
 * the reading stale reads again; a scrape that comes while another reads is answered from the
 * reading before. A failed read keeps the last reading, is counted in the refresh timer's {@code
 * error} tag, and is not retried before the interval has passed, so a database that is down is not
 * asked on every scrape.
 */
public final class DepthGauges {

  private final FencedQueue queue;
  private final String name;
  private final Instruments meters;
  private final long intervalNanos;
  private final ReentrantLock reading = new ReentrantLock();
  private volatile @Nullable QueueDepth last;

  /** Jobs waiting for a limit, as last read; NaN when the backend has no limits. */
  private volatile double waiting = Double.NaN;

  private volatile long readAt;
  private volatile boolean everRead;

  private DepthGauges(FencedQueue queue, String name, Instruments meters, Duration interval) {
    this.queue = queue;
    this.name = name;
    this.meters = meters;
    this.intervalNanos = interval.toNanos();
  }

  /**
   * Registers the gauges of {@code name}'s pending, running and failed jobs, and of its jobs
   * waiting for a limit ({@link FencedQueue#waitingForLimits}; NaN on a backend without limits).
   */
  public static void register(
      FencedQueue queue, String name, Instruments meters, Duration interval) {
    DepthGauges gauges = new DepthGauges(queue, name, meters, interval);
    gauges.gauge("pending", QueueDepth::pending);
    gauges.gauge("running", QueueDepth::running);
    gauges.gauge("failed", QueueDepth::failed);
    Gauge.builder("fencing.queue.limit.waiting", gauges, DepthGauges::waiting)
        .description(
            "Jobs of the queue waiting for one of its limits (all pending jobs while a limit of the"
                + " whole queue holds, else the due jobs its groups' limits hold back), as last read")
        .tags(meters.common)
        .tags(Tags.of("queue", name))
        .strongReference(true)
        .register(meters.registry);
  }

  private double waiting() {
    refreshIfStale();
    return waiting;
  }

  private void gauge(String state, ToLongFunction<QueueDepth> count) {
    Gauge.builder("fencing.queue.depth", this, gauges -> gauges.read(count))
        .description(
            "Jobs of the queue in each state, as last read; read at most once per refresh interval")
        .tags(meters.common)
        .tags(Tags.of("queue", name, "state", state))
        .strongReference(true)
        .register(meters.registry);
  }

  private double read(ToLongFunction<QueueDepth> count) {
    refreshIfStale();
    QueueDepth depth = last;
    return depth == null ? Double.NaN : count.applyAsLong(depth);
  }

  private void refreshIfStale() {
    if (!stale() || !reading.tryLock()) {
      return;
    }
    try {
      if (!stale()) {
        return;
      }
      Timer.Sample sample = meters.start();
      Throwable error = null;
      try {
        last = queue.depth(name);
        waiting = waitingForLimits();
      } catch (RuntimeException e) {
        error = e;
      } finally {
        readAt = meters.clock().monotonicTime();
        everRead = true;
        meters.stop(
            sample,
            "fencing.queue.depth.refresh",
            "Reads of a queue's depth for its gauges",
            Tags.of("queue", name),
            error);
      }
    } finally {
      reading.unlock();
    }
  }

  private double waitingForLimits() {
    try {
      return queue.waitingForLimits(name);
    } catch (UnsupportedOperationException e) {
      return Double.NaN; // a backend without limits: nothing waits for one
    }
  }

  private boolean stale() {
    return !everRead || meters.clock().monotonicTime() - readAt >= intervalNanos;
  }
}
