package dev.fencing.receiver;

import dev.fencing.Epoch;
import dev.fencing.FencedOutcome;
import dev.fencing.FencedReceiver;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/** A broken receiver without the epoch check: it keeps the last payload whatever its epoch. */
final class AlwaysAcceptReceiver implements FencedReceiver {

  private final Map<String, Receipt> receipts = new ConcurrentHashMap<>();

  @Override
  public FencedOutcome deliver(String key, Epoch epoch, String payload) {
    Receipt previous = receipts.put(key, new Receipt(key, epoch, payload));
    return new FencedOutcome.Accepted(
        key, epoch, previous != null && previous.epoch().equals(epoch));
  }

  @Override
  public Optional<Receipt> newest(String key) {
    return Optional.ofNullable(receipts.get(key));
  }

  /** Not part of what this variant breaks: it has no fence, as a receiver without one. */
  @Override
  public FencedOutcome fence(String key, Epoch epoch) {
    throw new UnsupportedOperationException(getClass().getName() + " cannot fence a key");
  }
}
