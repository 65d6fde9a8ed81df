package dev.fencing.postgres;

import dev.fencing.FencedQueue;
import dev.fencing.testkit.contract.FencedQueueContract;
import dev.fencing.testkit.db.TestSchema;

/**
 * The queue's contract on the default engine (append-only; {@link UpdateInPlaceQueueContractTest}:
 * the other).
 */
class PostgresQueueContractTest extends FencedQueueContract {

  @Override
  protected FencedQueue queue(TestSchema schema) {
    return PostgresFencing.builder(schema.sharedPool())
        .schema(schema.name())
        .maxAttempts(3)
        .build()
        .queue();
  }
}
