package dev.fencing.micrometer;

import dev.fencing.FencedQueue;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.testkit.contract.FencedQueueContract;
import dev.fencing.testkit.db.TestSchema;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

/** The metered queue keeps every rule of the queue it wraps. */
class MeteredQueueContractTest extends FencedQueueContract {

  @Override
  protected FencedQueue queue(TestSchema schema) {
    FencedQueue real =
        PostgresFencing.builder(schema.dataSource())
            .schema(schema.name())
            .maxAttempts(3)
            .build()
            .queue();
    return FencingMetrics.builder(new SimpleMeterRegistry()).watchDepth(QUEUE).build().queue(real);
  }
}
