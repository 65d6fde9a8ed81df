package dev.fencing.testkit.property;

/**
 * The invariants a {@link InterleavingRunner} checks after every step and at the end of an
 * interleaving.
 *
 * @since 0.1
 */
public enum Invariant {
  /** Epochs per job strictly increase with every claim, and never reset or go down. */
  EPOCHS_ONLY_GO_UP,
  /**
   * A commit (complete, fail, renew) succeeds only at the job's current epoch, by its current
   * owner, on a running job (or as a repeat of that lease's own write, which changes nothing: for a
   * fail that gave the job back, even after the job was claimed again); every other commit is
   * refused and leaves the row untouched.
   */
  COMMITS_ONLY_BY_CURRENT_OWNER,
  /**
   * The receiver's newest epoch per job is the highest epoch that ever delivered for it, and never
   * goes down.
   */
  RECEIVER_KEEPS_NEWEST,
  /** A completed job's result and the receiver's payload for it come from the same claim. */
  RESULT_MATCHES_RECEIPT,
  /**
   * No job is lost: every job ends completed, failed, or claimable again (pending, or running under
   * a lease that runs out), and a checker can claim each one that should be claimable.
   */
  NO_JOB_LOST,
  /**
   * With a running limit of N on the queue ({@link InterleavingRunner#run(Interleaving, int)}), the
   * jobs whose leases are valid never outnumber N: counted after every action by the store itself
   * in one statement ({@link ValidLeaseCount}), and from the jobs' snapshots against one reading of
   * the database clock.
   */
  VALID_LEASES_WITHIN_LIMIT
}
