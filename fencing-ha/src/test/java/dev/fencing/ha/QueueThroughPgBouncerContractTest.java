package dev.fencing.ha;

import dev.fencing.FencedQueue;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.testkit.contract.FencedQueueContract;
import dev.fencing.testkit.db.TestSchema;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;

/**
 * The queue contract through PgBouncer in transaction mode: every statement on a pool of client
 * connections to PgBouncer, which runs them on fewer server connections; the wake-ups listen on a
 * direct connection (docs/HA.md).
 */
class QueueThroughPgBouncerContractTest extends FencedQueueContract {

  private static DataSource throughBouncer;

  @BeforeAll
  static void pool() {
    throughBouncer = PgBouncerProcess.shared().pool(4);
  }

  @Override
  protected FencedQueue queue(TestSchema schema) {
    return PostgresFencing.builder(throughBouncer)
        .listenerDataSource(schema.dataSource())
        .schema(schema.name())
        .maxAttempts(3)
        .build()
        .queue();
  }
}
