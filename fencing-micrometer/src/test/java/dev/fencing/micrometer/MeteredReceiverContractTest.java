package dev.fencing.micrometer;

import dev.fencing.FencedReceiver;
import dev.fencing.receiver.Receivers;
import dev.fencing.testkit.contract.FencedReceiverContract;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

/** The metered receiver keeps every rule of the receiver it wraps, the fence's among them. */
class MeteredReceiverContractTest extends FencedReceiverContract {

  @Override
  protected FencedReceiver receiver() {
    return FencingMetrics.builder(new SimpleMeterRegistry()).build().receiver(Receivers.inMemory());
  }
}
