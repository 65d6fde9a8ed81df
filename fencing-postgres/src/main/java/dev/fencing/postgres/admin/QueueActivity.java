package dev.fencing.postgres.admin;

import java.time.Instant;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A queue's last hour ({@link PostgresAdmin#activity}), on the database clock.
 *
 * @param queue the queue
 * @param oldestPendingSince since when its oldest pending job has been due (its run time, or its
 *     enqueue when it was due at once), counting jobs due later too; null when none is pending
 * @param lastHour jobs finished in each of the last twelve 5-minute spans, oldest first, the last
 *     ending at the database's now
 * @since 0.1
 */
public record QueueActivity(
    String queue, @Nullable Instant oldestPendingSince, List<Bucket> lastHour) {

  public QueueActivity {
    lastHour = List.copyOf(lastHour);
  }

  /**
   * Jobs that ended in one span.
   *
   * @param start when the span began (it lasts 5 minutes)
   * @param completed jobs that ended completed in it
   * @param failed jobs that ended failed in it (cancelled ones included)
   */
  public record Bucket(Instant start, long completed, long failed) {}
}
