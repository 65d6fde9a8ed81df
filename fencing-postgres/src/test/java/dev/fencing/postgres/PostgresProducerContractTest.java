package dev.fencing.postgres;

import dev.fencing.FencedQueue;
import dev.fencing.JobProducer;
import dev.fencing.testkit.contract.JobProducerContract;
import dev.fencing.testkit.db.TestSchema;

/**
 * The producer's contract on the default engine (append-only; {@link
 * UpdateInPlaceProducerContractTest}: the other), through the role the front door hands out, and
 * through a pool: the contract's tests share one schema and make many short calls.
 */
class PostgresProducerContractTest extends JobProducerContract {

  private PostgresFencing fencing;

  /** The engine under test. */
  PostgresFencing.Builder configure(PostgresFencing.Builder builder) {
    return builder;
  }

  @Override
  protected FencedQueue queue(TestSchema schema) {
    fencing =
        configure(
                PostgresFencing.builder(schema.pooledDataSource(4))
                    .schema(schema.name())
                    .maxAttempts(3))
            .build();
    return fencing.queue();
  }

  @Override
  protected JobProducer producer(FencedQueue queue) {
    return fencing.producer();
  }
}
