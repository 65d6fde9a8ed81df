package dev.fencing.testkit.property;

/**
 * The invariants {@link OwnershipSafetyProperties} checks after every reply.
 *
 * @since 0.1
 */
public enum OwnershipInvariant {
  /** Every acquisition of a resource gets an epoch larger than every earlier one: none repeats. */
  EPOCHS_ONLY_GO_UP,
  /**
   * A resource is not acquired while a live producer holds it under a long lease it renewed
   * recently, has not released and has not been stalled or crashed since.
   */
  ONE_OWNER_AT_A_TIME,
  /** Only the newest ownership of a resource renews it or releases it. */
  ONLY_THE_NEWEST_OWNER_RENEWS_OR_RELEASES,
  /** The receiver never accepts an epoch older than one it accepted for the same resource. */
  RECEIVER_KEEPS_NEWEST
}
