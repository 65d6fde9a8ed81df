package dev.fencing.postgres.admin;

import java.time.Instant;
import java.util.Objects;

/**
 * One refused write under a lease, as recorded when it was refused (schema version 3). Recording is
 * best effort: a refusal whose record could not be written (a read-only connection, a schema
 * without the table) is missing here, and only the newest 50 of a job are kept.
 *
 * @param epoch the epoch of the lease whose write was refused
 * @param owner the lease's owner
 * @param action what it tried: {@code complete}, {@code fail}, {@code renew} or {@code release}
 * @param kind the simple name of the {@link dev.fencing.FencedOutcome.Refused} case: {@code
 *     Superseded}, {@code LeaseExpired}, {@code NotOwner}, {@code AlreadyFinished}, {@code Removed}
 *     or {@code Cancelled}
 * @param reason one line for a person, e.g. {@code epoch 1 superseded by epoch 2 held by worker-b}
 * @param at when it was refused (database clock)
 * @since 0.1
 */
public record RefusedWrite(
    long epoch, String owner, String action, String kind, String reason, Instant at) {

  /**
   * @throws NullPointerException if a field is null
   */
  public RefusedWrite {
    Objects.requireNonNull(owner, "owner");
    Objects.requireNonNull(action, "action");
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(reason, "reason");
    Objects.requireNonNull(at, "at");
  }
}
