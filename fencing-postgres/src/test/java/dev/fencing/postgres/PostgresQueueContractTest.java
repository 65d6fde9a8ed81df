package dev.fencing.postgres;

import dev.fencing.FencedQueue;
import dev.fencing.testkit.FencedQueueContract;
import dev.fencing.testkit.TestSchema;

class PostgresQueueContractTest extends FencedQueueContract {

  @Override
  protected FencedQueue queue(TestSchema schema) {
    return PostgresFencing.builder(schema.dataSource())
        .schema(schema.name())
        .maxAttempts(3)
        .build()
        .queue();
  }
}
