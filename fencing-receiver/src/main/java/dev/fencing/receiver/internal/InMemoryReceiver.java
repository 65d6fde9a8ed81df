package dev.fencing.receiver.internal;

import dev.fencing.Epoch;
import dev.fencing.FencedOutcome;
import dev.fencing.FencedReceiver;
import dev.fencing.internal.Deliveries;
import dev.fencing.internal.Validate;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;

/**
 * Keeps the newest receipt per key in a map; each delivery or fence is one atomic {@code compute}.
 * Payloads must be JSON text and are kept exactly as given.
 */
final class InMemoryReceiver implements FencedReceiver {

  /** The payload a fence leaves on a key never delivered to: JSON null. */
  private static final String NO_PAYLOAD = "null";

  private final ConcurrentHashMap<String, Receipt> receipts = new ConcurrentHashMap<>();

  @Override
  public FencedOutcome deliver(String key, Epoch epoch, String payload) {
    Deliveries.check(key, epoch, payload);
    JsonText.check("payload", payload);
    return write(key, epoch, payload);
  }

  @Override
  public FencedOutcome fence(String key, Epoch epoch) {
    Deliveries.fence(key, epoch);
    return write(key, epoch, null);
  }

  /**
   * Raises {@code key} to {@code epoch} unless it holds a newer one, with {@code payload}, or with
   * the payload it holds when that is null (a fence; JSON null for a key never delivered to).
   */
  private FencedOutcome write(String key, Epoch epoch, @Nullable String payload) {
    AtomicReference<FencedOutcome> outcome = new AtomicReference<>();
    receipts.compute(
        key,
        (k, current) -> {
          if (current == null) {
            outcome.set(new FencedOutcome.Accepted(k, epoch, false));
            return new Receipt(k, epoch, payload == null ? NO_PAYLOAD : payload);
          }
          if (epoch.compareTo(current.epoch()) < 0) {
            outcome.set(new FencedOutcome.Superseded(k, epoch, current.epoch(), null));
            return current;
          }
          outcome.set(new FencedOutcome.Accepted(k, epoch, epoch.equals(current.epoch())));
          return new Receipt(k, epoch, payload == null ? current.payload() : payload);
        });
    return outcome.get();
  }

  @Override
  public Optional<Receipt> newest(String key) {
    return Optional.ofNullable(receipts.get(Validate.key(key)));
  }

  @Override
  public String toString() {
    return "in-memory receiver (" + receipts.size() + " keys)";
  }
}
