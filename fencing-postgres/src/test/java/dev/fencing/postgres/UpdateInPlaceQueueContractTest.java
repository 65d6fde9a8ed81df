package dev.fencing.postgres;

import dev.fencing.FencedQueue;
import dev.fencing.testkit.contract.FencedQueueContract;
import dev.fencing.testkit.db.TestSchema;

/**
 * The queue's contract on the update-in-place engine ({@link PostgresQueueContractTest}: the
 * default).
 */
class UpdateInPlaceQueueContractTest extends FencedQueueContract {

  @Override
  protected FencedQueue queue(TestSchema schema) {
    return PostgresFencing.builder(schema.sharedPool())
        .schema(schema.name())
        .maxAttempts(3)
        .engine(PostgresFencing.Engine.UPDATE_IN_PLACE)
        .build()
        .queue();
  }
}
