package dev.fencing.keyed;

import dev.fencing.FencedOffException;
import dev.fencing.JobConsumer;
import dev.fencing.Lease;
import dev.fencing.internal.Validate;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.function.BooleanSupplier;

/**
 * Asked right before each time a call is sent: is the lease still current? An effect that cannot be
 * superseded (a payment, an email) is checked at call time. The check narrows the window, it does
 * not close it: a lease can still be lost while the request is on the wire, which is why the key is
 * the same for every epoch.
 *
 * @since 0.1
 */
@FunctionalInterface
public interface LeaseCheck {

  /** Returns empty if the lease is current, otherwise why it is not. */
  Optional<String> lost();

  /** A check that always passes: for calls made outside any lease. */
  static LeaseCheck none() {
    return Optional::empty;
  }

  /**
   * A check by {@code stillCurrent}; false, or an exception, counts as lost.
   *
   * @throws NullPointerException if {@code stillCurrent} is null
   */
  static LeaseCheck of(BooleanSupplier stillCurrent) {
    Objects.requireNonNull(stillCurrent, "stillCurrent");
    return () -> {
      try {
        return stillCurrent.getAsBoolean()
            ? Optional.empty()
            : Optional.of("the lease check said the lease is no longer current");
      } catch (RuntimeException e) {
        return Optional.of("the lease could not be checked: " + e);
      }
    };
  }

  /**
   * A check that renews {@code lease} on {@code queue} for {@code leaseLength} (on the backend's
   * clock): refused means lost, and so does a renewal that fails, since an unchecked lease must not
   * make the call.
   *
   * @param leaseLength between 1 ms and 24 h; long enough to cover the call
   * @throws IllegalArgumentException naming {@code leaseLength} if out of range
   * @throws NullPointerException if {@code queue} or {@code lease} is null
   */
  static LeaseCheck renewing(JobConsumer queue, Lease lease, Duration leaseLength) {
    Objects.requireNonNull(queue, "queue");
    Objects.requireNonNull(lease, "lease");
    Validate.leaseLength(leaseLength);
    return () -> {
      try {
        queue.renew(lease, leaseLength);
        return Optional.empty();
      } catch (FencedOffException e) {
        return Optional.of("the lease was not renewed: " + e.refusal());
      } catch (RuntimeException e) {
        return Optional.of("the lease could not be renewed: " + e);
      }
    };
  }
}
