package dev.fencing.testkit.memory;

import dev.fencing.FencedQueue;
import dev.fencing.testkit.contract.JobProducerContract;
import dev.fencing.testkit.db.TestSchema;

/**
 * The queue in memory keeps the producer's contract, on the system clock as PostgreSQL keeps it on
 * its own. The contract hands every backend a schema; this one leaves it empty.
 */
class InMemoryProducerContractTest extends JobProducerContract {

  @Override
  protected FencedQueue queue(TestSchema unused) {
    return InMemoryQueue.builder().maxAttempts(3).build();
  }
}
