package dev.fencing.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.CoordinationException;
import dev.fencing.FencedQueue;
import dev.fencing.Maintenance;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.receiver.Receivers;
import dev.fencing.testkit.db.FencingDatabase;
import dev.fencing.testkit.db.TestSchema;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.Collections;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The runtime runs retention beside its work: a backlog of old finished jobs goes in batches while
 * new jobs are done and kept; a maintenance that fails every round is counted and never stops the
 * work. Bounds are functional (seconds against a minute-long interval).
 */
@FencingDatabase
class MaintenanceInTheRuntimeTest {

  @Test
  void aBacklogOfOldJobsGoesInBatchesWhileNewWorkIsDoneAndKept(TestSchema schema) throws Exception {
    FencedQueue queue = queue(schema);
    queue.enqueueAll("q", Collections.nCopies(250, "{}"));
    Outcomes first = new Outcomes();
    try (QueueRuntime runtime = runtime(queue, first, null).start()) {
      first.await(WorkOutcome.Completed.class, 250, Duration.ofSeconds(60));
    }
    PostgresFencing fencing =
        PostgresFencing.builder(schema.dataSource()).schema(schema.name()).build();
    // no call ages a job: the end of each is moved 8 days back where its engine keeps it
    execute(
        schema,
        fencing.engine() == PostgresFencing.Engine.APPEND_ONLY
            ? "update fencing_append_done set finished_at = finished_at - interval '8 days'"
            : "update fencing_job set finished_at = finished_at - interval '8 days'");
    Maintenance maintenance =
        fencing.maintenance().keepFinished(Duration.ofDays(7)).batchSize(100).build();

    Outcomes outcomes = new Outcomes();
    try (QueueRuntime runtime = runtime(queue, outcomes, maintenance).start()) {
      queue.enqueueAll("q", Collections.nCopies(20, "{}"));
      outcomes.await(WorkOutcome.Completed.class, 20, Duration.ofSeconds(60));
      long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      while (runtime.maintenanceStats().jobsRemoved() < 250 && System.nanoTime() < deadline) {
        Thread.sleep(50);
      }
      MaintenanceStats stats = runtime.maintenanceStats();
      assertThat(stats.jobsRemoved()).isEqualTo(250);
      // 100 + 100 + 50, the last one not full; the next waits its minute
      assertThat(stats.rounds()).isEqualTo(3);
      assertThat(stats.failures()).isZero();
    }
    assertThat(fencing.admin().queues(true))
        .singleElement()
        .satisfies(q -> assertThat(q.completed()).as("completed jobs kept").isEqualTo(20));
  }

  @Test
  void aMaintenanceThatFailsEveryRoundIsCountedAndTheWorkGoesOn(TestSchema schema)
      throws Exception {
    FencedQueue queue = queue(schema);
    AtomicInteger calls = new AtomicInteger();
    Maintenance broken =
        () -> {
          calls.incrementAndGet();
          throw new CoordinationException("the database is gone");
        };
    Outcomes outcomes = new Outcomes();
    QueueRuntime runtime = runtime(queue, outcomes, broken).start();
    queue.enqueueAll("q", Collections.nCopies(10, "{}"));
    outcomes.await(WorkOutcome.Completed.class, 10, Duration.ofSeconds(60));
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (calls.get() < 2 && System.nanoTime() < deadline) {
      Thread.sleep(50);
    }
    runtime.close();
    assertThat(runtime.maintenanceStats().failures()).isGreaterThanOrEqualTo(2);
    assertThat(runtime.maintenanceStats().rounds()).isZero();
    assertThat(runtime.stats().completed()).isEqualTo(10);
  }

  /**
   * Rounds a minute apart ran VACUUM once a minute, and claims slowed as dead versions piled up:
   * the runtime runs rounds at the upkeep pace the maintenance asks for (1 s here) when that is
   * shorter.
   */
  @Test
  void roundsRunAtTheUpkeepPaceTheMaintenanceAsksForWhenItIsShorter(TestSchema schema)
      throws Exception {
    FencedQueue queue = queue(schema);
    AtomicInteger calls = new AtomicInteger();
    Maintenance paced =
        new Maintenance() {
          @Override
          public Report runRound() {
            calls.incrementAndGet();
            return Report.NOTHING;
          }

          @Override
          public Optional<Duration> upkeepEvery() {
            return Optional.of(Duration.ofMillis(200)); // taken as the floor of 1 s
          }
        };
    try (QueueRuntime runtime = runtime(queue, new Outcomes(), paced).start()) {
      Thread.sleep(3_500);
      // the first at once, then one a second, not one a minute; nor one every 200 ms
      assertThat(runtime.maintenanceStats().rounds()).isBetween(3L, 5L);
    }
  }

  @Test
  void theIntervalIsCheckedAndNamed(TestSchema schema) {
    FencedQueue queue = queue(schema);
    Maintenance nothing = () -> Maintenance.Report.NOTHING;
    assertThatThrownBy(
            () ->
                runtime(queue, new Outcomes(), null)
                    .maintenance(nothing, Duration.ofMillis(999))
                    .start())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("maintenance every must be between PT1S and PT24H, but was PT0.999S");
    assertThatThrownBy(() -> runtime(queue, new Outcomes(), null).maintenance(null, Duration.ZERO))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("maintenance");
  }

  private static QueueRuntime.Builder runtime(
      FencedQueue queue, Outcomes outcomes, Maintenance maintenance) {
    QueueRuntime.Builder b =
        QueueRuntime.builder(queue, Receivers.inMemory())
            .queue("q")
            .owner("w1")
            .onOutcome(outcomes)
            .handler((job, cancellation) -> "{}");
    return maintenance == null ? b : b.maintenance(maintenance, Duration.ofMinutes(1));
  }

  private static FencedQueue queue(TestSchema schema) {
    return PostgresFencing.builder(schema.pooledDataSource(8))
        .schema(schema.name())
        .build()
        .queue();
  }

  private static void execute(TestSchema schema, String sql) throws Exception {
    try (Connection c = schema.dataSource().getConnection();
        Statement s = c.createStatement()) {
      s.execute("set search_path to \"" + schema.name() + "\"");
      s.execute(sql);
    }
  }
}
