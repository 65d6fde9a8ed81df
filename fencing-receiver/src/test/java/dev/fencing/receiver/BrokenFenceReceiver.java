package dev.fencing.receiver;

import dev.fencing.Epoch;
import dev.fencing.FencedOutcome;
import dev.fencing.FencedReceiver;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * A broken receiver whose deliveries keep the epoch check and whose fence does not: either it sets
 * the key to the fence's epoch even below the held one, or it raises nothing at all.
 */
final class BrokenFenceReceiver implements FencedReceiver {

  private final Map<String, Receipt> receipts = new HashMap<>();
  private final boolean raises;

  private BrokenFenceReceiver(boolean raises) {
    this.raises = raises;
  }

  /** A fence without its epoch check: it lowers a key that holds a newer epoch. */
  static BrokenFenceReceiver withoutTheEpochCheck() {
    return new BrokenFenceReceiver(true);
  }

  /** A fence that answers accepted and raises nothing. */
  static BrokenFenceReceiver thatRaisesNothing() {
    return new BrokenFenceReceiver(false);
  }

  @Override
  public synchronized FencedOutcome deliver(String key, Epoch epoch, String payload) {
    Receipt current = receipts.get(key);
    if (current != null && epoch.compareTo(current.epoch()) < 0) {
      return new FencedOutcome.Superseded(key, epoch, current.epoch(), null);
    }
    receipts.put(key, new Receipt(key, epoch, payload));
    return new FencedOutcome.Accepted(key, epoch, current != null && current.epoch().equals(epoch));
  }

  @Override
  public synchronized FencedOutcome fence(String key, Epoch epoch) {
    Receipt current = receipts.get(key);
    if (raises) {
      receipts.put(key, new Receipt(key, epoch, current == null ? "null" : current.payload()));
    }
    return new FencedOutcome.Accepted(key, epoch, current != null && current.epoch().equals(epoch));
  }

  @Override
  public synchronized Optional<Receipt> newest(String key) {
    return Optional.ofNullable(receipts.get(key));
  }
}
