package dev.fencing.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.Epoch;
import dev.fencing.FencedOutcome;
import dev.fencing.FencedReceiver;
import dev.fencing.JobState;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.testkit.db.FencingDatabase;
import dev.fencing.testkit.db.TestSchema;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Deliveries and fences to a real PostgreSQL receiver, counted by outcome and refusals by reason.
 */
@FencingDatabase
class MeteredReceiverTest {

  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private FencedReceiver real;
  private FencedReceiver receiver;

  @BeforeEach
  void build(TestSchema schema) {
    real =
        PostgresFencing.builder(schema.sharedPool())
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

  @Test
  void aFenceIsPassedOnAndCountedByOutcome() {
    receiver.deliver("acct-1", Epoch.of(2), "{\"n\": 2}");

    assertThat(receiver.fence("acct-1", Epoch.of(4)))
        .isEqualTo(new FencedOutcome.Accepted("acct-1", Epoch.of(4), false));
    assertThat(receiver.fence("acct-1", Epoch.of(4)))
        .isEqualTo(new FencedOutcome.Accepted("acct-1", Epoch.of(4), true));
    assertThat(receiver.fence("acct-1", Epoch.of(3)))
        .isEqualTo(new FencedOutcome.Superseded("acct-1", Epoch.of(3), Epoch.of(4), null));

    assertThat(real.newest("acct-1"))
        .contains(new FencedReceiver.Receipt("acct-1", Epoch.of(4), "{\"n\": 2}"));
    assertThat(count("fencing.fences", "outcome", "accepted")).isEqualTo(1);
    assertThat(count("fencing.fences", "outcome", "repeat")).isEqualTo(1);
    assertThat(count("fencing.fences", "outcome", "superseded")).isEqualTo(1);
    assertThat(registry.find("fencing.fenced.off").counters())
        .as("a fence below the held epoch is no zombie's refusal")
        .isEmpty();
  }

  @Test
  void everyKindOfRefusalIsCountedUnderItsOwnName() {
    Epoch one = Epoch.FIRST;
    List<FencedOutcome.Refused> refusals =
        List.of(
            new FencedOutcome.Superseded("k", one, Epoch.of(2), null),
            new FencedOutcome.LeaseExpired("k", one, java.time.Instant.EPOCH),
            new FencedOutcome.NotOwner("k", one, "w", Epoch.of(2), "other"),
            new FencedOutcome.AlreadyFinished("k", one, JobState.COMPLETED),
            new FencedOutcome.Removed("k", one),
            new FencedOutcome.Cancelled("k", one, "no longer wanted"));
    for (FencedOutcome.Refused refusal : refusals) {
      FencingMetrics.builder(registry)
          .build()
          .receiver(
              new FencedReceiver() {
                @Override
                public dev.fencing.FencedOutcome fence(String key, dev.fencing.Epoch epoch) {
                  throw new UnsupportedOperationException("this test double does not fence");
                }

                @Override
                public FencedOutcome deliver(String key, Epoch epoch, String payload) {
                  return refusal;
                }

                @Override
                public Optional<FencedReceiver.Receipt> newest(String key) {
                  return Optional.empty();
                }
              })
          .deliver("k", one, "{}");
    }

    for (String reason :
        List.of("superseded", "expired", "not_owner", "finished", "removed", "cancelled")) {
      assertThat(count("fencing.fenced.off", "reason", reason, "stage", "deliver"))
          .as(reason)
          .isEqualTo(1);
    }
  }

  private double count(String name, String... tags) {
    return registry.get(name).tags(tags).counter().count();
  }
}
