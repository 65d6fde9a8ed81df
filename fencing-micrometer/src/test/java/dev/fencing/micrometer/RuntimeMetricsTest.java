package dev.fencing.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.Epoch;
import dev.fencing.FencedQueue;
import dev.fencing.FencedReceiver;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.receiver.Receivers;
import dev.fencing.runtime.FencedWorkers;
import dev.fencing.testkit.db.FencingDatabase;
import dev.fencing.testkit.db.TestSchema;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * A queue of the workers bound to its meters, run to completion on PostgreSQL, one of its jobs
 * fenced off.
 */
@FencingDatabase
class RuntimeMetricsTest {

  private static final int JOBS = 20;

  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

  @Test
  void theRuntimesStatsAndFencedOffOutcomesAreMeters(TestSchema schema) throws Exception {
    FencingMetrics metrics = FencingMetrics.builder(registry).build();
    FencedQueue queue =
        metrics.queue(
            PostgresFencing.builder(schema.pooledDataSource(4))
                .schema(schema.name())
                .build()
                .queue());
    FencedReceiver real = Receivers.inMemory();
    List<Long> ids = queue.enqueueAll("q", IntStream.range(0, JOBS).mapToObj(i -> "{}").toList());
    // a newer epoch reached the receiver first: the runtime's delivery for this job is refused
    real.deliver(Long.toString(ids.get(0)), Epoch.of(9), "{}");
    RuntimeMetrics meters = metrics.runtime("worker-1");

    try (FencedWorkers workers =
        FencedWorkers.builder(queue)
            .owner("worker-1")
            .receiver(metrics.receiver(real))
            .onOutcome(meters)
            .queue("q", (job, cancellation) -> "{\"ok\": true}", q -> q.concurrency(2))
            .start()) {
      assertThatThrownBy(() -> meters.bind(workers, "other"))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("queue must be one the workers run, [q], but was 'other'");
      meters.bind(workers, "q");
      awaitEnded(workers);

      assertThat(runtimeCount("fencing.runtime.jobs.claimed")).isEqualTo(JOBS);
      assertThat(runtimeCount("fencing.runtime.jobs.ended", "outcome", "completed"))
          .isEqualTo(JOBS - 1);
      assertThat(runtimeCount("fencing.runtime.jobs.ended", "outcome", "fenced_off")).isEqualTo(1);
      assertThat(runtimeCount("fencing.runtime.jobs.ended", "outcome", "failed")).isZero();
      assertThat(runtimeCount("fencing.runtime.statements", "kind", "claim")).isPositive();
      assertThat(runtimeCount("fencing.runtime.statements", "kind", "commit")).isPositive();
      assertThat(runtimeCount("fencing.runtime.errors", "source", "store")).isZero();
      assertThat(
              registry
                  .get("fencing.runtime.jobs.in.flight")
                  .tags("runtime", "worker-1")
                  .gauge()
                  .value())
          .isZero();
      assertThat(
              registry
                  .get("fencing.runtime.fenced.off")
                  .tags("runtime", "worker-1", "stage", "deliver", "reason", "superseded")
                  .counter()
                  .count())
          .isEqualTo(1);
      assertThatThrownBy(() -> meters.bind(workers, "q")).isInstanceOf(IllegalStateException.class);
    }
    // the decorators around the runtime saw the same work
    assertThat(registry.get("fencing.commits").tags("outcome", "accepted").counter().count())
        .isEqualTo(JOBS - 1);
    assertThat(
            registry
                .get("fencing.fenced.off")
                .tags("reason", "superseded", "stage", "deliver")
                .counter()
                .count())
        .isEqualTo(1);

    meters.close();
    assertThat(registry.find("fencing.runtime.jobs.claimed").meters()).isEmpty();
    assertThat(registry.find("fencing.runtime.fenced.off").meters()).isEmpty();
  }

  private double runtimeCount(String name, String... tags) {
    return registry.get(name).tags("runtime", "worker-1").tags(tags).functionCounter().count();
  }

  private static void awaitEnded(FencedWorkers workers) throws InterruptedException {
    for (int i = 0; i < 1_000 && workers.stats().get("q").ended() < JOBS; i++) {
      Thread.sleep(20);
    }
    assertThat(workers.stats().get("q").ended()).isEqualTo(JOBS);
  }
}
