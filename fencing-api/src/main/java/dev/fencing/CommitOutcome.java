package dev.fencing;

import java.util.Objects;

/**
 * What happened to one item of a batched commit ({@link FencedQueue#completeAll}): a fenced outcome
 * (accepted, or refused and dropped), or {@link Invalid} when the store would not take the result.
 * One bad item fails alone; the rest of its batch commits.
 *
 * @since 0.1
 */
public sealed interface CommitOutcome permits FencedOutcome, CommitOutcome.Invalid {

  /** The job id (in decimal) the commit was for. */
  String key();

  /** The epoch that tried to commit. */
  Epoch epoch();

  /**
   * The store refused the result itself (for example JSON that PostgreSQL's {@code jsonb} does not
   * accept); nothing was written for this item, and the job still runs under its lease.
   *
   * @param error names the item and the value
   */
  record Invalid(String key, Epoch epoch, IllegalArgumentException error) implements CommitOutcome {
    /**
     * @throws NullPointerException if any is null
     */
    public Invalid {
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(epoch, "epoch");
      Objects.requireNonNull(error, "error");
    }
  }
}
