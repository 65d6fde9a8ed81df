package dev.fencing.receiver;

import dev.fencing.FencedReceiver;
import dev.fencing.receiver.internal.ReceiverFactory;

/**
 * The module's front door: receivers that keep the newest epoch per key, accept a newer or equal
 * epoch and refuse an older one, with no database. The PostgreSQL receiver comes from {@code
 * PostgresFencing.receiver(name)} in {@code fencing-postgres}.
 *
 * <pre>{@code
 * FencedReceiver receiver = Receivers.inMemory();
 * FencedOutcome outcome = receiver.deliver("acc-1", lease.epoch(), "{\"debit\": 100}");
 * }</pre>
 *
 * @since 0.1
 */
public final class Receivers {

  private Receivers() {}

  /**
   * Returns a new, empty, thread-safe receiver that keeps its receipts in this JVM's memory. It
   * keeps payloads exactly as given; a payload that is not exactly one JSON value raises {@link
   * IllegalArgumentException} naming {@code payload}.
   */
  public static FencedReceiver inMemory() {
    return ReceiverFactory.inMemory();
  }
}
