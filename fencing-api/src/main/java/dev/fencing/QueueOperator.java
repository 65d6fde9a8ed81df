package dev.fencing;

/**
 * The operator's role of a {@link FencedQueue}: a queue's depth, its limits, and the jobs waiting
 * for them. For dashboards, meters and the people who run the queues ({@code
 * PostgresFencing.operator()}).
 *
 * @since 0.1
 */
public interface QueueOperator {

  /**
   * Returns the limits the store keeps for {@code queue}: {@link QueueLimits#NONE} when none were
   * set.
   *
   * @throws IllegalArgumentException if {@code queue} is not a plain identifier
   * @throws StoreUnavailableException if the store could not be reached or refused after the
   *     backend's retries; nothing was read
   */
  QueueLimits limits(String queue);

  /**
   * Sets the limits of {@code queue} for every process that claims from it ({@link
   * QueueLimits#NONE} removes them). The next claim obeys them; a lowered running limit ends no
   * lease: no claim succeeds until enough of the running jobs have ended or their leases ran out.
   * On PostgreSQL the limits are promised once every process claiming from the queue runs a library
   * of schema version 2 or later (docs/UPGRADING.md).
   *
   * @return the limits as they were before
   * @throws IllegalArgumentException if {@code queue} is not a plain identifier or {@code limits}
   *     is null; nothing written
   * @throws StoreUnavailableException if the store could not be reached or refused after the
   *     backend's retries; whether the limits were set is unknown, and setting them again is safe
   */
  QueueLimits setLimits(String queue, QueueLimits limits);

  /**
   * Returns how many of the queue's jobs wait for one of its {@link QueueLimits limits}, for a
   * meter ("jobs waiting for a limit"): while a limit of the whole queue holds (its running limit
   * is reached, or its rate has no token left), every pending job of the queue, delayed ones too;
   * otherwise the jobs of groups that are due but held back by their group's limits (its running
   * limit, its rate, FIFO behind a head). 0 for a queue without limits. Read without a lock: a
   * moment's view, not a promise about the next claim.
   *
   * @throws IllegalArgumentException if {@code queue} is not a plain identifier
   * @throws StoreUnavailableException if the store could not be reached or refused after the
   *     backend's retries; nothing was read
   */
  long waitingForLimits(String queue);

  /**
   * Returns how many of the queue's jobs are pending, running and failed, read in one statement.
   *
   * @param queue a plain identifier ({@code [a-z_][a-z0-9_]{0,62}}); a queue with no jobs has depth
   *     zero
   * @throws IllegalArgumentException if {@code queue} is not a plain identifier
   * @throws StoreUnavailableException if the store could not be reached or refused after the
   *     backend's retries; nothing was read
   */
  QueueDepth depth(String queue);
}
