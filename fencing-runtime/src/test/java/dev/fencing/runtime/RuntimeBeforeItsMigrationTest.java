package dev.fencing.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.FencedQueue;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.receiver.Receivers;
import dev.fencing.testkit.db.FencingDatabase;
import dev.fencing.testkit.db.TestSchema;
import dev.fencing.testkit.logging.CapturedLogs;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * A runtime deployed with {@code install(false)} before its schema's migration: its claims are
 * refused (the schema is not at the version its library needs), it says so in its log instead of
 * idling without a word, completes nothing, and starts working by itself once the schema is
 * migrated, without a restart.
 */
@FencingDatabase
class RuntimeBeforeItsMigrationTest {

  @Test
  void aRuntimeWaitsForItsMigrationSayingWhyThenCompletesEveryJob(TestSchema schema)
      throws Exception {
    PostgresFencing old =
        PostgresFencing.builder(schema.dataSource()).schema(schema.name()).build();
    old.queue().enqueueAll("q", IntStream.range(0, 20).mapToObj(i -> "{}").toList());
    // what a build from before schema versions left
    try (Connection c = schema.dataSource().getConnection();
        Statement s = c.createStatement()) {
      s.execute("drop table " + schema.name() + ".fencing_schema_version");
    }
    FencedQueue queue =
        PostgresFencing.builder(schema.pooledDataSource(4))
            .schema(schema.name())
            .install(false)
            .build()
            .queue();
    Outcomes outcomes = new Outcomes();
    try (CapturedLogs log = CapturedLogs.of(Pipeline.LOGGER);
        QueueRuntime runtime =
            QueueRuntime.builder(queue, Receivers.inMemory())
                .queue("q")
                .owner("deployed-early")
                .onOutcome(outcomes)
                .handler((job, cancellation) -> "{}")
                .start()) {
      long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
      while (runtime.stats().storeErrors() < 3 && System.nanoTime() < deadline) {
        Thread.sleep(50);
      }
      assertThat(runtime.stats().storeErrors()).isGreaterThanOrEqualTo(3);
      assertThat(outcomes.all()).isEmpty();
      assertThat(log.messages())
          .filteredOn(m -> m.contains("claims of queue q by deployed-early failed"))
          .as("one warning for the run of failures, not one per try")
          .hasSize(1)
          .first()
          .asString()
          .contains("SchemaVersionException")
          .contains("needs version " + PostgresFencing.schemaVersion());

      PostgresFencing.builder(schema.dataSource()).schema(schema.name()).build();

      outcomes.await(WorkOutcome.Completed.class, 20, Duration.ofSeconds(30));
      assertThat(log.messages())
          .anyMatch(m -> m.contains("claims of queue q by deployed-early succeed again after"));
    }
    assertThat(outcomes.all()).hasSize(20).allMatch(WorkOutcome.Completed.class::isInstance);
  }
}
