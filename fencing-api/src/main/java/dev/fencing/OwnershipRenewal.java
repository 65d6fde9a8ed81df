package dev.fencing;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * What a renewal did to one ownership: {@link Renewed} with its new expiry, or {@link Lost} with
 * why. A lost ownership is lost for good: stop sending with its epoch and acquire again, which
 * takes a newer epoch.
 *
 * @since 0.1
 */
public sealed interface OwnershipRenewal permits OwnershipRenewal.Renewed, OwnershipRenewal.Lost {

  /** The ownership the renewal was for (for {@link Renewed}: with its new expiry). */
  Ownership ownership();

  /** Returns whether the ownership still holds. */
  default boolean isRenewed() {
    return this instanceof Renewed;
  }

  /**
   * The ownership still holds, now until {@link Ownership#expiresAt()}.
   *
   * @param ownership the renewed ownership
   */
  record Renewed(Ownership ownership) implements OwnershipRenewal {
    /**
     * @throws NullPointerException if {@code ownership} is null
     */
    public Renewed {
      Objects.requireNonNull(ownership, "ownership");
    }
  }

  /**
   * The ownership is no longer the caller's, or can no longer be confirmed to be.
   *
   * @param ownership the ownership as it was
   * @param why why it was lost
   * @param current the newest epoch of the resource, if the backend could read it
   * @param detail what happened, for a log line
   */
  record Lost(Ownership ownership, Why why, @Nullable Epoch current, String detail)
      implements OwnershipRenewal {
    /**
     * @throws NullPointerException if a required reference is null
     */
    public Lost {
      Objects.requireNonNull(ownership, "ownership");
      Objects.requireNonNull(why, "why");
      Objects.requireNonNull(detail, "detail");
    }
  }

  /** Why an ownership was lost. */
  enum Why {
    /**
     * It ended (its lease ran out, its session expired, or it was released); nobody newer holds it
     * yet.
     */
    ENDED,
    /** A newer acquisition, with a larger epoch, holds the resource. */
    SUPERSEDED,
    /**
     * The service could not be reached in time, so the ownership cannot be confirmed. It may still
     * be held there until its lease runs out; it is reported lost rather than silently kept.
     */
    UNREACHABLE
  }
}
