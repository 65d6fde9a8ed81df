package dev.fencing;

import java.time.Duration;
import java.util.Optional;

/**
 * The housekeeping a backend needs to run for months: finished jobs past their retention time are
 * removed (or archived), and their storage is reclaimed, in small steps that never hold up claims
 * or commits.
 *
 * <p>A round is one small step: one batch of at most the configured number of jobs, in its own
 * transaction, plus whatever storage upkeep is due. Run rounds from one thread or from many, in one
 * process or several: concurrent rounds share the work and never remove a job twice. A runtime
 * calls {@link #runRound()} until nothing is left, then waits; a cron job calls {@link
 * #runUntilDone()}.
 *
 * <p>Removing a job also forgets its idempotency key: enqueueing the same key afterwards adds a new
 * job. Keep finished jobs at least as long as producers may retry.
 *
 * @since 0.1
 */
public interface Maintenance {

  /**
   * Runs one round: removes at most one batch of finished jobs older than the retention time, with
   * their delivered outbox messages, and does the storage upkeep that is due.
   *
   * @return what the round did; {@link Report#moreLeft()} tells whether another round has work
   * @throws StoreUnavailableException if the backend failed after its transient retries; nothing of
   *     the failed batch was removed
   * @throws SchemaNotInstalledException if the store holds no fencing tables
   */
  Report runRound();

  /**
   * Returns how often rounds must run, at the least, for the storage upkeep they do to keep its
   * pace (for PostgreSQL, its {@code vacuumEvery}), whatever the pace chosen for retention; empty
   * when rounds need no pace of their own. A runtime runs rounds at least this often. Reads no
   * store and throws nothing.
   */
  default Optional<Duration> upkeepEvery() {
    return Optional.empty();
  }

  /**
   * Runs rounds until one finds nothing more to remove, and returns their sum.
   *
   * @throws StoreUnavailableException as {@link #runRound()}; the rounds before it stay done
   * @throws SchemaNotInstalledException as {@link #runRound()}
   */
  default Report runUntilDone() {
    Report total = Report.NOTHING;
    Report round;
    do {
      round = runRound();
      total = total.plus(round);
    } while (round.moreLeft() && !Thread.currentThread().isInterrupted());
    return total;
  }

  /**
   * What maintenance did.
   *
   * @param jobsRemoved finished jobs removed from the job table (archived ones included)
   * @param jobsArchived of those, how many were copied to the archive first
   * @param messagesRemoved delivered outbox messages removed with their jobs
   * @param moreLeft whether the last round's batch was full, so more jobs may be due
   */
  record Report(long jobsRemoved, long jobsArchived, long messagesRemoved, boolean moreLeft) {

    /** A round that did nothing and found nothing more. */
    public static final Report NOTHING = new Report(0, 0, 0, false);

    /**
     * @throws IllegalArgumentException naming a count below zero, or more jobs archived than
     *     removed
     */
    public Report {
      if (jobsRemoved < 0 || jobsArchived < 0 || messagesRemoved < 0) {
        throw new IllegalArgumentException(
            "counts must not be negative, but were jobsRemoved="
                + jobsRemoved
                + ", jobsArchived="
                + jobsArchived
                + ", messagesRemoved="
                + messagesRemoved);
      }
      if (jobsArchived > jobsRemoved) {
        throw new IllegalArgumentException(
            "jobsArchived must not exceed jobsRemoved ("
                + jobsRemoved
                + "), but was "
                + jobsArchived);
      }
    }

    /** Returns the sum of both counts, with {@code later}'s {@code moreLeft}. */
    public Report plus(Report later) {
      return new Report(
          jobsRemoved + later.jobsRemoved,
          jobsArchived + later.jobsArchived,
          messagesRemoved + later.messagesRemoved,
          later.moreLeft);
    }
  }
}
