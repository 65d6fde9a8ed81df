package dev.fencing;

/**
 * How many jobs of one queue are in each unfinished state, and how many failed for good, as read at
 * one moment. Completed jobs are not counted: they are history, not depth.
 *
 * @param pending waiting to be claimed, due now or later
 * @param running claimed under a lease, expired leases included
 * @param failed ended failed on their last attempt (until retention removes them)
 * @since 0.1
 */
public record QueueDepth(long pending, long running, long failed) {

  /**
   * @throws IllegalArgumentException naming the first count that is negative
   */
  public QueueDepth {
    nonNegative("pending", pending);
    nonNegative("running", running);
    nonNegative("failed", failed);
  }

  /** Returns the jobs not yet finished: pending plus running. */
  public long unfinished() {
    return pending + running;
  }

  private static void nonNegative(String name, long count) {
    if (count < 0) {
      throw new IllegalArgumentException(name + " must be at least 0, but was " + count);
    }
  }
}
