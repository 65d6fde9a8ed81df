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

  /**
   * Shows a value in a message the way {@link Validate} does: quoted, cut at 120 characters. A NUL
   * character is shown as {@code \0}, so that the message itself can be logged and stored.
   */
  static String quote(String value) {
    String shown = value.length() > 120 ? value.substring(0, 120) + "..." : value;
    return "'" + shown.replace("\0", "\\0") + "'";
  }
}
