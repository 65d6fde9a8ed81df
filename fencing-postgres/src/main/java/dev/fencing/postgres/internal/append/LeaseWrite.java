package dev.fencing.postgres.internal.append;

import dev.fencing.FencedOutcome;
import dev.fencing.Lease;
import dev.fencing.OutboxMessage;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * One write under a lease on the append-only engine, as {@link AppendWrites} runs it, and what
 * became of it.
 *
 * @param result for a commit, JSON
 * @param error for a failure, as kept
 * @param micros for a failure, the retry delay; for a renewal, the lease length
 */
record LeaseWrite(
    Lease lease,
    Kind kind,
    @Nullable String result,
    List<OutboxMessage> messages,
    @Nullable String error,
    long micros) {

  /** What a write does. */
  enum Kind {
    COMPLETE,
    FAIL,
    /** A failure that ends the job failed whatever attempts it has left. */
    FAIL_FINALLY,
    RELEASE,
    RENEW
  }

  /** What became of one write: accepted (a renewal with its new lease), or refused. */
  record Outcome(
      FencedOutcome.@Nullable Accepted accepted,
      @Nullable Lease renewed,
      FencedOutcome.@Nullable Refused refused) {

    /** The write was accepted: the first time, or as a {@code repeat} of one that landed. */
    static Outcome accepted(Lease lease, boolean repeat) {
      return new Outcome(
          new FencedOutcome.Accepted(lease.key(), lease.epoch(), repeat), null, null);
    }

    static Outcome refused(FencedOutcome.Refused refused) {
      return new Outcome(null, null, refused);
    }
  }
}
