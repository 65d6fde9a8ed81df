package dev.fencing.internal;

import dev.fencing.Epoch;
import org.jspecify.annotations.Nullable;

/**
 * The checks every receiver applies to a delivery (or a fence) before it touches its store or the
 * network, so that the in-memory, PostgreSQL and HTTP receivers refuse the same inputs with the
 * same messages ({@code FencedReceiverContract} holds them to it). Apart from {@link Validate}
 * because it names the API's {@link Epoch}. Internal: exported only to the fencing modules, not an
 * API.
 */
public final class Deliveries {

  private Deliveries() {}

  /**
   * Checks a delivery's parameters in order: the key ({@link Validate#key}), the epoch (not null),
   * the payload ({@link Validate#json}).
   *
   * @throws IllegalArgumentException naming the first bad parameter and its value
   */
  public static void check(@Nullable String key, @Nullable Epoch epoch, @Nullable String payload) {
    fence(key, epoch);
    Validate.json("payload", payload);
  }

  /**
   * Checks a fence's parameters ({@code FencedReceiver.fence}) in order: the key ({@link
   * Validate#key}), the epoch (not null).
   *
   * @throws IllegalArgumentException naming the first bad parameter and its value
   */
  public static void fence(@Nullable String key, @Nullable Epoch epoch) {
    Validate.key(key);
    if (epoch == null) {
      throw new IllegalArgumentException("epoch must not be null, but was null");
    }
  }
}
