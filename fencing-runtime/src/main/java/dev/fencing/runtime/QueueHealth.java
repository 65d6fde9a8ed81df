package dev.fencing.runtime;

/**
 * Whether a queue of {@link FencedWorkers} can do its work now ({@link FencedWorkers#health()}).
 *
 * @param renewalsFailing the latest lease renewal failed (after the queue's retries) and no
 *     statement of the runtime succeeded since: its leases will run out and its work be fenced off
 * @param claimsFailing the latest claim failed (the store unreachable, or refusing: a schema at a
 *     version the library may not run on, say); the runtime tries again with a backoff
 * @param lastFailure the latest failure's text, if any failed since start
 * @since 0.1
 */
public record QueueHealth(
    boolean renewalsFailing, boolean claimsFailing, java.util.Optional<String> lastFailure) {

  /** Whether neither renewals nor claims are failing. */
  public boolean healthy() {
    return !renewalsFailing && !claimsFailing;
  }
}
