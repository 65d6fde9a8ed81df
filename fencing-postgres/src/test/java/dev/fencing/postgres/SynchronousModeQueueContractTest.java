package dev.fencing.postgres;

import dev.fencing.FencedQueue;
import dev.fencing.testkit.contract.FencedQueueContract;
import dev.fencing.testkit.db.TestSchema;

/**
 * The queue in synchronous mode keeps the whole contract: every call in one transaction with its
 * forced {@code synchronous_commit} and its WAL record (on the shared server no standby is named,
 * so no commit waits).
 */
class SynchronousModeQueueContractTest extends FencedQueueContract {

  @Override
  protected FencedQueue queue(TestSchema schema) {
    return PostgresFencing.builder(schema.sharedPool())
        .schema(schema.name())
        .maxAttempts(3)
        .synchronousReplication(true)
        .build()
        .queue();
  }
}
