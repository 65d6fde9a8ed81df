package dev.fencing.postgres.admin;

import java.time.Instant;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One hand-out of a job: the claim that took one epoch, as far as the engine keeps it.
 *
 * @param epoch the fencing token the claim took, from 1
 * @param owner the worker that claimed it, or null when the engine no longer knows
 * @param claimedAt when it was claimed (database clock), or null when not kept
 * @param leaseExpiresAt when its lease runs out or ran out, or null when not kept
 * @param ended how the claim ended: {@code running}, {@code completed}, {@code failed}, {@code
 *     released}, {@code expired}, {@code cancelled}, {@code taken over} (a later claim took the job
 *     while this one held it), or {@code unknown} when the engine does not keep it
 * @since 0.1
 */
public record EpochClaim(
    long epoch,
    @Nullable String owner,
    @Nullable Instant claimedAt,
    @Nullable Instant leaseExpiresAt,
    String ended) {

  /**
   * @throws IllegalArgumentException if {@code epoch} is below 1
   * @throws NullPointerException if {@code ended} is null
   */
  public EpochClaim {
    if (epoch < 1) {
      throw new IllegalArgumentException("epoch must be at least 1, but was " + epoch);
    }
    Objects.requireNonNull(ended, "ended");
  }
}
