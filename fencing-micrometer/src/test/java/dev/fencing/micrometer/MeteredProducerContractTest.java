package dev.fencing.micrometer;

import dev.fencing.FencedQueue;
import dev.fencing.testkit.contract.JobProducerContract;
import dev.fencing.testkit.db.TestSchema;

/**
 * The metered queue keeps every promise of the producer it wraps (through a pool: the contract's
 * tests share one schema and make many short calls).
 */
class MeteredProducerContractTest extends JobProducerContract {

  @Override
  protected FencedQueue queue(TestSchema schema) {
    return MeteredQueueContractTest.metered(schema, schema.sharedPool());
  }
}
