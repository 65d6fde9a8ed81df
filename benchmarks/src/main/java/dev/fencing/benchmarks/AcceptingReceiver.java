package dev.fencing.benchmarks;

import dev.fencing.Epoch;
import dev.fencing.FencedOutcome;
import dev.fencing.FencedReceiver;
import java.util.Optional;

/** A receiver that accepts every delivery and keeps nothing: the benchmarks measure the queue. */
enum AcceptingReceiver implements FencedReceiver {
  INSTANCE;

  @Override
  public FencedOutcome fence(String key, Epoch epoch) {
    return new FencedOutcome.Accepted(key, epoch, false);
  }

  @Override
  public FencedOutcome deliver(String key, Epoch epoch, String payload) {
    return new FencedOutcome.Accepted(key, epoch, false);
  }

  @Override
  public Optional<Receipt> newest(String key) {
    return Optional.empty();
  }
}
