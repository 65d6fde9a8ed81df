package dev.fencing;

import java.util.Objects;

/**
 * What a heartbeat did to one lease: {@link Renewed} with its new expiry, or {@link Lost} with the
 * reason the job is no longer this lease's. A lost lease must stop: its result would be refused.
 *
 * @since 0.1
 */
public sealed interface Renewal permits Renewal.Renewed, Renewal.Lost {

  /** The lease the heartbeat was for (for {@link Renewed}: with its new expiry). */
  Lease lease();

  /**
   * The lease still owns the job, now until {@link Lease#expiresAt()}, on the backend's clock.
   *
   * @param lease the renewed lease
   */
  record Renewed(Lease lease) implements Renewal {
    /**
     * @throws NullPointerException if {@code lease} is null
     */
    public Renewed {
      Objects.requireNonNull(lease, "lease");
    }
  }

  /**
   * The lease was not renewed and nothing changed: it expired, a newer claim owns the job, or the
   * job already finished.
   *
   * @param lease the lease as it was
   * @param refusal why
   */
  record Lost(Lease lease, FencedOutcome.Refused refusal) implements Renewal {
    /**
     * @throws NullPointerException if either is null
     */
    public Lost {
      Objects.requireNonNull(lease, "lease");
      Objects.requireNonNull(refusal, "refusal");
    }
  }
}
