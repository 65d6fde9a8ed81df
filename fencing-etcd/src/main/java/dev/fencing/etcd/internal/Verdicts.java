package dev.fencing.etcd.internal;

import dev.fencing.Epoch;
import dev.fencing.FencedOutcome;
import dev.fencing.Ownership;
import dev.fencing.OwnershipRenewal;
import dev.fencing.OwnershipRenewal.Lost;
import dev.fencing.OwnershipRenewal.Why;
import io.etcd.jetcd.KeyValue;
import org.jspecify.annotations.Nullable;

/**
 * What a renewal or a release that found the key not matching the ownership reports, judged on the
 * key as etcd returned it in the same transaction: absent, created later (a newer acquisition), or
 * created at the same or an earlier revision under another owner or epoch (the ownership was never
 * granted as given).
 */
final class Verdicts {

  private Verdicts() {}

  /** Why a renewal of {@code ownership} failed, given the key now ({@code null} if absent). */
  static Lost lost(Ownership ownership, @Nullable KeyValue current) {
    if (current == null) {
      return new Lost(
          ownership, Why.ENDED, null, "the ownership ended: its lease ran out or it was released");
    }
    Epoch epoch = Epoch.of(current.getCreateRevision());
    String holder = Keys.owner(current);
    if (epoch.isNewerThan(ownership.epoch())) {
      return new Lost(
          ownership, Why.SUPERSEDED, epoch, holder + " acquired the resource at " + epoch);
    }
    return new Lost(
        ownership,
        Why.ENDED,
        epoch,
        "the resource was never held as given: " + holder + " holds it at " + epoch);
  }

  /**
   * Why an ownership reported lost before, for want of an answer, stays lost, given the key now.
   */
  static Lost lostEarlier(Ownership ownership, @Nullable KeyValue current) {
    Lost lost = lost(ownership, current);
    if (current != null && current.getCreateRevision() == ownership.epoch().value()) {
      return new Lost(
          ownership,
          Why.ENDED,
          lost.current(),
          "a renewal already reported this ownership lost (etcd did not answer); acquire again");
    }
    return lost;
  }

  /** What a release of {@code ownership} that changed nothing reports, given the key now. */
  static FencedOutcome refusedRelease(Ownership ownership, @Nullable KeyValue current) {
    if (current == null) {
      return new FencedOutcome.Accepted(ownership.key(), ownership.epoch(), true);
    }
    Epoch epoch = Epoch.of(current.getCreateRevision());
    String holder = Keys.owner(current);
    if (epoch.isNewerThan(ownership.epoch())) {
      return new FencedOutcome.Superseded(ownership.key(), ownership.epoch(), epoch, holder);
    }
    return new FencedOutcome.NotOwner(
        ownership.key(), ownership.epoch(), ownership.owner(), epoch, holder);
  }

  /** A renewal that could not be confirmed in time. */
  static OwnershipRenewal unreachable(Ownership ownership, RuntimeException cause) {
    return new Lost(ownership, Why.UNREACHABLE, null, String.valueOf(cause.getMessage()));
  }
}
