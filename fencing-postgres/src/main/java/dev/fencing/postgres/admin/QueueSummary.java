package dev.fencing.postgres.admin;

import dev.fencing.internal.Validate;
import org.jspecify.annotations.Nullable;

/**
 * One queue's jobs by state, as read at one moment.
 *
 * @param queue the queue's name
 * @param pending waiting to be claimed, due now or later
 * @param running claimed under a lease, expired leases included
 * @param failed ended failed (until purged)
 * @param completed ended completed (until purged); null when not counted, since counting them reads
 *     every completed row of the table
 * @since 0.1
 */
public record QueueSummary(
    String queue, long pending, long running, long failed, @Nullable Long completed) {

  /**
   * @throws IllegalArgumentException naming the queue if it is not a plain identifier, or the first
   *     count that is negative
   */
  public QueueSummary {
    Validate.identifier("queue", queue);
    nonNegative("pending", pending);
    nonNegative("running", running);
    nonNegative("failed", failed);
    if (completed != null) {
      nonNegative("completed", completed);
    }
  }

  private static void nonNegative(String name, long count) {
    if (count < 0) {
      throw new IllegalArgumentException(name + " must be at least 0, but was " + count);
    }
  }
}
