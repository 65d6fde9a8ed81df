package dev.fencing.testkit.memory;

import dev.fencing.FencedQueue;
import dev.fencing.testkit.contract.FencedQueueContract;
import dev.fencing.testkit.db.TestSchema;

/**
 * The queue in memory keeps the queue's contract on the system clock, waiting leases out as the
 * PostgreSQL queue's test does ({@link InMemoryQueueOnAManualClockContractTest}: the same rules
 * with no sleep). The contract hands every backend a schema; this one leaves it empty.
 */
class InMemoryQueueContractTest extends FencedQueueContract {

  @Override
  protected FencedQueue queue(TestSchema unused) {
    return InMemoryQueue.builder().maxAttempts(3).build();
  }
}
