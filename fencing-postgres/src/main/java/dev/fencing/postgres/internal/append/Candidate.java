package dev.fencing.postgres.internal.append;

import java.time.OffsetDateTime;
import org.jspecify.annotations.Nullable;

/**
 * One candidate for a claim's batch, and where it came from: a fresh job of the window ({@link
 * AppendWindow}), a due {@code requeue} row or an open job of an expired claim row ({@link
 * Reclaims}). A claim merges the three sources by {@link #earlier}.
 *
 * @param ready when it became ready: a fresh job at its enqueue, a {@code requeue} row at its due
 *     time, an expired claim's job when the lease ran out
 * @param previousEpoch the epoch of its last hand-out, 0 for a fresh job
 * @param attemptsUsed the attempts it used so far
 * @param cameFrom what its hand-out records it came from ({@code fresh}, {@code expired}, or the
 *     reason of its {@code requeue} row)
 * @param xid for a fresh job, the enqueueing transaction's id (the window's order); else 0
 * @param claimId for an expired claim's job, that claim row; else 0
 * @param previousOwner the owner of its last hand-out, null for a fresh job
 * @param priority its priority: a parked job's ({@link Parked}), 0 for every other
 */
record Candidate(
    long jobId,
    OffsetDateTime ready,
    long previousEpoch,
    int attemptsUsed,
    String cameFrom,
    @Nullable String lastError,
    String payload,
    int maxAttempts,
    long xid,
    long claimId,
    @Nullable String previousOwner,
    int priority) {

  /** A candidate at priority 0. */
  Candidate(
      long jobId,
      OffsetDateTime ready,
      long previousEpoch,
      int attemptsUsed,
      String cameFrom,
      @Nullable String lastError,
      String payload,
      int maxAttempts,
      long xid,
      long claimId,
      @Nullable String previousOwner) {
    this(
        jobId,
        ready,
        previousEpoch,
        attemptsUsed,
        cameFrom,
        lastError,
        payload,
        maxAttempts,
        xid,
        claimId,
        previousOwner,
        0);
  }

  /**
   * Whether this one goes before {@code other}: a higher priority, else became ready earlier, else
   * a lower job id.
   */
  boolean earlier(Candidate other) {
    if (priority != other.priority) {
      return priority > other.priority;
    }
    int byTime = ready.compareTo(other.ready);
    return byTime < 0 || (byTime == 0 && jobId < other.jobId);
  }
}
