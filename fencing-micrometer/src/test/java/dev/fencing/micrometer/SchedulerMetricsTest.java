package dev.fencing.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.postgres.PostgresFencing;
import dev.fencing.schedule.FencedScheduler;
import dev.fencing.schedule.Missed;
import dev.fencing.schedule.Schedule;
import dev.fencing.schedule.SchedulerStats;
import dev.fencing.spi.ScheduleStore;
import dev.fencing.testkit.db.FencingDatabase;
import dev.fencing.testkit.db.TestSchema;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** A scheduler's counts as meters, on a real PostgreSQL. */
@FencingDatabase
class SchedulerMetricsTest {

  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

  @Test
  void slotsEnqueuedAndSkippedAndIdleRoundsAreCounted(TestSchema schema) throws Exception {
    ScheduleStore store = store(schema);
    Schedule ticks =
        Schedule.builder("ticks")
            .queue("ticks")
            .every(Duration.ofMillis(200))
            .missed(Missed.runOnce())
            .grace(Duration.ZERO)
            .build();
    FencedScheduler first = FencedScheduler.builder(store).name("first").schedule(ticks).build();
    FencedScheduler second = FencedScheduler.builder(store).name("second").schedule(ticks).build();
    FencingMetrics metrics = FencingMetrics.builder(registry).build();
    metrics.scheduler(first);
    metrics.scheduler(second);

    first.runRound();
    Thread.sleep(700);
    first.runRound();
    second.runRound();

    for (FencedScheduler s : java.util.List.of(first, second)) {
      SchedulerStats stats = s.stats();
      String name = s.name();
      assertThat(count("fencing.schedule.slots", name, "outcome", "enqueued"))
          .isEqualTo(stats.enqueued());
      assertThat(count("fencing.schedule.slots", name, "outcome", "skipped"))
          .isEqualTo(stats.skipped());
      assertThat(count("fencing.schedule.idle", name, "reason", "taken")).isEqualTo(stats.taken());
      assertThat(count("fencing.schedule.idle", name, "reason", "superseded"))
          .isEqualTo(stats.superseded());
      assertThat(count("fencing.schedule.idle", name, "reason", "conflict"))
          .isEqualTo(stats.conflicts());
      assertThat(count("fencing.schedule.idle", name, "reason", "failed"))
          .isEqualTo(stats.failures());
    }
    assertThat(first.stats().enqueued()).isPositive();
    assertThat(first.stats().skipped()).isPositive();
  }

  @Test
  void aSchedulerIsTaggedWithTheNameGivenRatherThanItsOwn(TestSchema schema) {
    ScheduleStore store = store(schema);
    FencedScheduler scheduler =
        FencedScheduler.builder(store)
            .name("pod-7-4242")
            .schedule(Schedule.builder("ticks").queue("ticks").every(Duration.ofHours(1)).build())
            .build();
    FencingMetrics.builder(registry).build().scheduler("reports", scheduler);

    assertThat(registry.find("fencing.schedule.slots").tag("scheduler", "reports").meters())
        .hasSize(2);
    assertThat(registry.find("fencing.schedule.slots").tag("scheduler", "pod-7-4242").meters())
        .isEmpty();
  }

  private static ScheduleStore store(TestSchema schema) {
    return PostgresFencing.builder(schema.pooledDataSource(2))
        .schema(schema.name())
        .build()
        .schedules();
  }

  private double count(String name, String scheduler, String key, String value) {
    return registry.get(name).tags("scheduler", scheduler, key, value).functionCounter().count();
  }
}
