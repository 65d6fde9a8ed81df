package dev.fencing.receiver;

import dev.fencing.FencedReceiver;

class InMemoryReceiverTest extends FencedReceiverContract {

  @Override
  protected FencedReceiver receiver() {
    return Receivers.inMemory();
  }

  @Override
  protected int deliveriesPerThread() {
    return 5_000;
  }
}
