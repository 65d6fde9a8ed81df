package dev.fencing.receiver.internal;

import dev.fencing.FencedReceiver;

/** Builds the receivers for {@code dev.fencing.receiver.Receivers}; not part of the API. */
public final class ReceiverFactory {

  private ReceiverFactory() {}

  /** Returns a new, empty in-memory receiver. */
  public static FencedReceiver inMemory() {
    return new InMemoryReceiver();
  }
}
