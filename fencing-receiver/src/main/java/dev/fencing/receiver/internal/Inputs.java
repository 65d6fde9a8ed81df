package dev.fencing.receiver.internal;

import dev.fencing.Epoch;
import dev.fencing.internal.Validate;
import org.jspecify.annotations.Nullable;

/** The checks every receiver applies before it touches its store. */
final class Inputs {

  private Inputs() {}

  /** Checks a delivery's parameters in order: key, epoch, payload. */
  static void delivery(@Nullable String key, @Nullable Epoch epoch, @Nullable String payload) {
    Validate.key(key);
    if (epoch == null) {
      throw new IllegalArgumentException("epoch must not be null, but was null");
    }
    Validate.json("payload", payload);
  }
}
