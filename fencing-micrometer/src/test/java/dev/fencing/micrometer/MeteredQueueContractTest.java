package dev.fencing.micrometer;

import dev.fencing.FencedQueue;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.testkit.contract.FencedQueueContract;
import dev.fencing.testkit.db.TestSchema;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import javax.sql.DataSource;

/** The metered queue keeps every rule of the queue it wraps. */
class MeteredQueueContractTest extends FencedQueueContract {

  @Override
  protected FencedQueue queue(TestSchema schema) {
    return metered(schema, schema.sharedPool());
  }

  /**
   * The PostgreSQL queue in {@code schema}, reached through {@code dataSource}, at most 3 attempts
   * a job, with meters on {@link #QUEUE}.
   */
  static FencedQueue metered(TestSchema schema, DataSource dataSource) {
    FencedQueue real =
        PostgresFencing.builder(dataSource).schema(schema.name()).maxAttempts(3).build().queue();
    return FencingMetrics.builder(new SimpleMeterRegistry()).watchDepth(QUEUE).build().queue(real);
  }
}
