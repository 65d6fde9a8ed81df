package dev.fencing.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.Epoch;
import dev.fencing.FencedReceiver;
import dev.fencing.Maintenance;
import dev.fencing.OutboxMessage;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.receiver.Receivers;
import dev.fencing.runtime.FencedWorkers;
import dev.fencing.runtime.HandlerResult;
import dev.fencing.testkit.db.FencingDatabase;
import dev.fencing.testkit.db.TestSchema;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The maintenance and the relay of the worker door as meters, on PostgreSQL. */
@FencingDatabase
class WorkersMetricsTest {

  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

  @Test
  void theWorkersMaintenanceAndRelayAreMetersWithoutARuntimeTag(TestSchema schema)
      throws Exception {
    FencingMetrics metrics = FencingMetrics.builder(registry).tags("service", "billing").build();
    PostgresFencing fencing =
        PostgresFencing.builder(schema.pooledDataSource(4)).schema(schema.name()).build();
    fencing.queue().enqueue("mail", "{}");
    FencedReceiver mail = Receivers.inMemory();
    // a newer epoch reached the receiver first: the relay's message for this key is refused
    mail.deliver("late", Epoch.of(9), "{}");
    try (FencedWorkers workers =
        FencedWorkers.builder(fencing.queue())
            .owner("w1")
            .outboxQueue(
                "mail",
                (job, c) ->
                    HandlerResult.of(
                        "{}",
                        new OutboxMessage("mail", "on-time", "{}"),
                        new OutboxMessage("mail", "late", "{}")),
                q -> {})
            .relay(fencing.outbox(), "mail", mail)
            // one round that removed 3 jobs, one of them archived
            .maintenance(() -> new Maintenance.Report(3, 1, 0, false), Duration.ofHours(1))
            .start()) {
      metrics.workers(workers);
      long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
      while (workers.relayStats().sent() < 2 && System.nanoTime() < deadline) {
        Thread.sleep(20);
      }

      assertThat(count("fencing.relay.messages", "outcome", "accepted")).isEqualTo(1);
      assertThat(count("fencing.relay.messages", "outcome", "refused")).isEqualTo(1);
      assertThat(count("fencing.relay.failures")).isZero();
      assertThat(count("fencing.maintenance.jobs", "action", "removed")).isEqualTo(3);
      assertThat(count("fencing.maintenance.jobs", "action", "archived")).isEqualTo(1);
      assertThat(count("fencing.maintenance.failures")).isZero();
      assertThat(registry.find("fencing.maintenance.jobs").tagKeys("runtime").meters()).isEmpty();
    }
  }

  private double count(String name, String... tags) {
    return registry.get(name).tag("service", "billing").tags(tags).functionCounter().count();
  }
}
