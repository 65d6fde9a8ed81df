package dev.fencing.postgres.internal;

import dev.fencing.Epoch;
import dev.fencing.FencedOutcome;
import dev.fencing.JobState;
import dev.fencing.Lease;
import java.time.OffsetDateTime;
import org.jspecify.annotations.Nullable;

/** Names the reason a compare-and-set on owner and epoch matched no row. */
final class Refusals {

  private Refusals() {}

  static FencedOutcome.Refused classify(
      Lease lease,
      JobState state,
      @Nullable String owner,
      long epoch,
      @Nullable OffsetDateTime leaseExpiresAt) {
    String key = lease.key();
    long mine = lease.epoch().value();
    if (epoch > mine) {
      return new FencedOutcome.Superseded(key, lease.epoch(), Epoch.of(epoch), owner);
    }
    if (epoch < mine || !lease.owner().equals(owner)) {
      return new FencedOutcome.NotOwner(
          key, lease.epoch(), lease.owner(), epoch == 0 ? null : Epoch.of(epoch), owner);
    }
    if (state == JobState.RUNNING && leaseExpiresAt != null) {
      return new FencedOutcome.LeaseExpired(key, lease.epoch(), leaseExpiresAt.toInstant());
    }
    return new FencedOutcome.AlreadyFinished(key, lease.epoch(), state);
  }
}
