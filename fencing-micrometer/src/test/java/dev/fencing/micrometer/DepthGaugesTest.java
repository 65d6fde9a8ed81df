package dev.fencing.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.FencedQueue;
import dev.fencing.Job;
import dev.fencing.QueueDepth;
import dev.fencing.QueueLimits;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.testkit.db.FencingDatabase;
import dev.fencing.testkit.db.TestSchema;
import io.micrometer.core.instrument.MockClock;
import io.micrometer.core.instrument.simple.SimpleConfig;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Depth gauges match {@link FencedQueue#depth} and read it at most once per refresh interval. Time
 * is the registry's mock clock, so nothing here waits or measures.
 */
@FencingDatabase
class DepthGaugesTest {

  private static final Duration LONG = Duration.ofMinutes(5);
  private static final Duration REFRESH = Duration.ofSeconds(10);

  private final MockClock clock = new MockClock();
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry(SimpleConfig.DEFAULT, clock);
  private FencedQueue real;
  private FencedQueue queue;

  @BeforeEach
  void build(TestSchema schema) {
    real =
        PostgresFencing.builder(schema.sharedPool())
            .schema(schema.name())
            .maxAttempts(1)
            .build()
            .queue();
    queue =
        FencingMetrics.builder(registry)
            .watchDepth("emails", "reports")
            .refreshInterval(REFRESH)
            .build()
            .queue(real);
  }

  @Test
  void theGaugesMatchTheQueuesDepthByState() {
    queue.enqueueAll("emails", List.of("{}", "{}", "{}", "{}"));
    queue.claim("emails", "w1", LONG).orElseThrow();
    Job failing = queue.claim("emails", "w1", LONG).orElseThrow();
    queue.fail(failing.lease(), "boom", Duration.ZERO);
    QueueDepth depth = real.depth("emails");
    assertThat(depth).isEqualTo(new QueueDepth(2, 1, 1));

    assertThat(gauge("emails", "pending")).isEqualTo(depth.pending());
    assertThat(gauge("emails", "running")).isEqualTo(depth.running());
    assertThat(gauge("emails", "failed")).isEqualTo(depth.failed());
    assertThat(gauge("reports", "pending")).isZero();
  }

  @Test
  void aGaugeCountsTheJobsWaitingForALimit() {
    queue.enqueueAll("emails", List.of("{}", "{}", "{}"));
    assertThat(waiting("emails")).as("no limits").isZero();
    queue.setLimits("emails", QueueLimits.maxRunning(1));
    queue.claim("emails", "w1", LONG).orElseThrow();
    clock.add(REFRESH);
    assertThat(waiting("emails")).isEqualTo(real.waitingForLimits("emails")).isEqualTo(2);
    assertThat(waiting("reports")).isZero();
  }

  private double waiting(String queueName) {
    return registry.get("fencing.queue.limit.waiting").tag("queue", queueName).gauge().value();
  }

  @Test
  void scrapesWithinTheIntervalDoNotReadTheDatabaseAgain() {
    queue.enqueue("emails", "{}");
    assertThat(gauge("emails", "pending")).isEqualTo(1);
    assertThat(gauge("emails", "running")).isZero();
    assertThat(gauge("emails", "failed")).isZero();

    queue.enqueue("emails", "{}");
    clock.add(REFRESH.minusMillis(1));
    for (int i = 0; i < 5; i++) {
      assertThat(gauge("emails", "pending")).isEqualTo(1);
    }
    assertThat(refreshes("emails")).isEqualTo(1);

    clock.add(Duration.ofMillis(1));
    assertThat(gauge("emails", "pending")).isEqualTo(2);
    assertThat(refreshes("emails")).isEqualTo(2);
  }

  @Test
  void onlyTheWatchedQueuesHaveGauges() {
    assertThat(registry.find("fencing.queue.depth").gauges())
        .extracting(g -> g.getId().getTag("queue") + "/" + g.getId().getTag("state"))
        .containsExactlyInAnyOrder(
            "emails/pending",
            "emails/running",
            "emails/failed",
            "reports/pending",
            "reports/running",
            "reports/failed");
  }

  private double gauge(String queueName, String state) {
    return registry
        .get("fencing.queue.depth")
        .tags("queue", queueName, "state", state)
        .gauge()
        .value();
  }

  private long refreshes(String queueName) {
    return registry
        .get("fencing.queue.depth.refresh")
        .tags("queue", queueName, "error", "none")
        .timer()
        .count();
  }
}
