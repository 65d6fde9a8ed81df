package dev.fencing.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.Epoch;
import dev.fencing.FencedOutcome;
import dev.fencing.FencedReceiver;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.testkit.db.FencingDatabase;
import dev.fencing.testkit.db.TestSchema;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Deliveries to a real PostgreSQL receiver, counted by outcome and refusals by reason. */
@FencingDatabase
class MeteredReceiverTest {

  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private FencedReceiver real;
  private FencedReceiver receiver;

  @BeforeEach
  void build(TestSchema schema) {
    real =
        PostgresFencing.builder(schema.dataSource())
            .schema(schema.name())
            .build()
            .receiver("default");
    receiver = FencingMetrics.builder(registry).build().receiver(real);
  }

  @Test
  void anOlderEpochsDeliveryIsRefusedAndCountedAtStageDeliver() {
    assertThat(receiver.deliver("acct-1", Epoch.of(2), "{\"n\":2}").isAccepted()).isTrue();
    assertThat(receiver.deliver("acct-1", Epoch.of(2), "{\"n\":2}"))
        .isInstanceOfSatisfying(FencedOutcome.Accepted.class, a -> assertThat(a.repeat()).isTrue());
    FencedOutcome late = receiver.deliver("acct-1", Epoch.FIRST, "{\"n\":1}");

    assertThat(late).isInstanceOf(FencedOutcome.Superseded.class);
    assertThat(receiver.newest("acct-1")).isEqualTo(real.newest("acct-1"));
    assertThat(count("fencing.deliveries", "outcome", "accepted")).isEqualTo(1);
    assertThat(count("fencing.deliveries", "outcome", "repeat")).isEqualTo(1);
    assertThat(count("fencing.deliveries", "outcome", "refused")).isEqualTo(1);
    assertThat(count("fencing.fenced.off", "reason", "superseded", "stage", "deliver"))
        .isEqualTo(1);
    assertThat(registry.get("fencing.deliver").tags("error", "none").timer().count()).isEqualTo(3);
  }

  private double count(String name, String... tags) {
    return registry.get(name).tags(tags).counter().count();
  }
}
