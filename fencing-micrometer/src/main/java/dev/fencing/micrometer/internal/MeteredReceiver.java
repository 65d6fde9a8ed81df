package dev.fencing.micrometer.internal;

import dev.fencing.Epoch;
import dev.fencing.FencedOutcome;
import dev.fencing.FencedReceiver;
import dev.fencing.Lease;
import dev.fencing.Ownership;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * A {@link FencedReceiver} that meters every delivery and passes it, unchanged, to the receiver it
 * wraps (each {@code deliver} overload to the same overload). A refused delivery is returned, as
 * the receiver returned it, and counted by reason at {@code stage=deliver}. A fence is passed on
 * and counted by its outcome.
 */
public final class MeteredReceiver implements FencedReceiver {

  private final FencedReceiver delegate;
  private final Instruments meters;

  public MeteredReceiver(FencedReceiver delegate, Instruments meters) {
    this.delegate = delegate;
    this.meters = meters;
  }

  @Override
  public FencedOutcome deliver(String key, Epoch epoch, String payload) {
    return delivered(() -> delegate.deliver(key, epoch, payload));
  }

  @Override
  public FencedOutcome deliver(Lease lease, String payload) {
    return delivered(() -> delegate.deliver(lease, payload));
  }

  @Override
  public FencedOutcome deliver(Ownership ownership, String payload) {
    return delivered(() -> delegate.deliver(ownership, payload));
  }

  /**
   * Passes the fence on and counts it by outcome: {@code accepted}, {@code repeat} or {@code
   * superseded} (the key held a newer epoch, which fences all the same: not a refusal of a zombie,
   * so not counted as fenced off).
   */
  @Override
  public FencedOutcome fence(String key, Epoch epoch) {
    FencedOutcome outcome = delegate.fence(key, epoch);
    String tag =
        switch (outcome) {
          case FencedOutcome.Accepted accepted -> accepted.repeat() ? "repeat" : "accepted";
          case FencedOutcome.Refused refused -> "superseded";
        };
    meters
        .counter(
            "fencing.fences",
            "Keys raised without a delivery (repeat: the same epoch again; superseded: held a"
                + " newer one)",
            Tags.of("outcome", tag))
        .increment();
    return outcome;
  }

  @Override
  public Optional<Receipt> newest(String key) {
    return delegate.newest(key);
  }

  private FencedOutcome delivered(Supplier<FencedOutcome> delivery) {
    Timer.Sample sample = meters.start();
    FencedOutcome outcome;
    try {
      outcome = delivery.get();
    } catch (RuntimeException | Error e) {
      meters.stop(sample, "fencing.deliver", "Calls to the receiver", Tags.empty(), e);
      throw e;
    }
    meters.stop(sample, "fencing.deliver", "Calls to the receiver", Tags.empty(), null);
    String tag =
        switch (outcome) {
          case FencedOutcome.Accepted accepted -> accepted.repeat() ? "repeat" : "accepted";
          case FencedOutcome.Refused refused -> {
            meters.fencedOff(refused, "deliver");
            yield "refused";
          }
        };
    meters
        .counter(
            "fencing.deliveries",
            "Deliveries the receiver accepted (repeat: the same epoch again) or refused",
            Tags.of("outcome", tag))
        .increment();
    return outcome;
  }
}
