package dev.fencing.http;

import dev.fencing.Epoch;
import dev.fencing.FencedOutcome;
import dev.fencing.FencedReceiver;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

/** A receiver in front of another that counts the deliveries and fences that reached it. */
final class CountingReceiver implements FencedReceiver {

  private final FencedReceiver backing;
  private final AtomicInteger deliveries = new AtomicInteger();
  private final AtomicInteger fences = new AtomicInteger();

  CountingReceiver(FencedReceiver backing) {
    this.backing = backing;
  }

  int deliveries() {
    return deliveries.get();
  }

  @Override
  public FencedOutcome deliver(String key, Epoch epoch, String payload) {
    deliveries.incrementAndGet();
    return backing.deliver(key, epoch, payload);
  }

  int fences() {
    return fences.get();
  }

  @Override
  public FencedOutcome fence(String key, Epoch epoch) {
    fences.incrementAndGet();
    return backing.fence(key, epoch);
  }

  @Override
  public Optional<Receipt> newest(String key) {
    return backing.newest(key);
  }
}
