package dev.fencing.console.internal;

import dev.fencing.postgres.admin.PostgresAdmin;
import dev.fencing.postgres.admin.QueueActivity;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every queue's activity (the oldest pending job, the last hour's chart) for the queues page, read
 * in the background at most once per {@link #TTL}: counting the hour's finished jobs can take
 * hundreds of milliseconds on a busy schema (docs/BENCHMARKS.md), and no page should wait for it
 * but the first. A page is drawn from the newest read; a stale one starts the next read, one at a
 * time.
 */
final class ActivityCache implements AutoCloseable {

  static final Duration TTL = Duration.ofSeconds(10);
  private static final Logger LOG = LoggerFactory.getLogger("dev.fencing.console");

  private record Snapshot(Instant readAt, Map<String, QueueActivity> byQueue) {}

  private final PostgresAdmin admin;
  private final ExecutorService reader =
      Executors.newSingleThreadExecutor(
          r -> {
            Thread t = new Thread(r, "fencing-console-activity");
            t.setDaemon(true);
            return t;
          });
  private final AtomicBoolean reading = new AtomicBoolean();
  private volatile @Nullable Snapshot snapshot;

  ActivityCache(PostgresAdmin admin) {
    this.admin = admin;
  }

  /**
   * Returns the newest read's activity by queue; waits only when there is none yet. A queue the
   * read did not know is missing from it until the next read, which starts at once.
   */
  Map<String, QueueActivity> get(List<String> queues) {
    Snapshot s = snapshot;
    if (s == null) {
      return read(queues).byQueue();
    }
    boolean stale = s.readAt().plus(TTL).isBefore(Instant.now());
    if (stale || !s.byQueue().keySet().containsAll(queues)) {
      readLater(queues);
    }
    return s.byQueue();
  }

  private Snapshot read(List<String> queues) {
    Map<String, QueueActivity> byQueue = new HashMap<>();
    admin.activities(queues).forEach(a -> byQueue.put(a.queue(), a));
    Snapshot fresh = new Snapshot(Instant.now(), Map.copyOf(byQueue));
    snapshot = fresh;
    return fresh;
  }

  private void readLater(List<String> queues) {
    if (!reading.compareAndSet(false, true)) {
      return;
    }
    reader.execute(
        () -> {
          try {
            read(queues);
          } catch (RuntimeException e) {
            LOG.warn("console: reading the queues' activity failed", e);
          } finally {
            reading.set(false);
          }
        });
  }

  @Override
  public void close() {
    reader.shutdownNow();
  }
}
