package dev.fencing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class ValidateTest {

  @Test
  void epochsStartAtOneAndOnlyGoUp() {
    assertThat(Epoch.FIRST.next()).isEqualTo(Epoch.of(2));
    assertThat(Epoch.of(3).isNewerThan(Epoch.of(2))).isTrue();
    assertThat(Epoch.of(2).isNewerThan(Epoch.of(2))).isFalse();
    assertThatThrownBy(() -> Epoch.of(0)).hasMessage("epoch must be at least 1, but was 0");
    assertThatThrownBy(() -> Epoch.of(Long.MAX_VALUE).next())
        .isInstanceOf(ArithmeticException.class);
  }

  @Test
  void identifiersArePlainLowerCaseNames() {
    assertThat(Validate.identifier("queue", "emails_2")).isEqualTo("emails_2");
    for (String bad : new String[] {"x; drop table", "Emails", "2x", "", "a-b", "x".repeat(64)}) {
      assertThatThrownBy(() -> Validate.identifier("queue", bad))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("queue must be a plain identifier")
          .hasMessageEndingWith("but was '" + bad + "'");
    }
    assertThatThrownBy(() -> Validate.identifier("schema", null))
        .hasMessageEndingWith("but was null");
  }

  @Test
  void leaseLengthsAreBetweenAMillisecondAndADay() {
    assertThat(Validate.leaseLength(Duration.ofMillis(1))).isEqualTo(Duration.ofMillis(1));
    assertThat(Validate.leaseLength(Duration.ofHours(24))).isEqualTo(Duration.ofHours(24));
    assertThatThrownBy(() -> Validate.leaseLength(Duration.ofSeconds(-5)))
        .hasMessage("leaseLength must be between PT0.001S and PT24H, but was PT-5S");
    assertThatThrownBy(() -> Validate.leaseLength(Duration.ofHours(24).plusNanos(1)))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void ownersAndLeasesAreChecked() {
    assertThatThrownBy(() -> new Lease(1, " ", Epoch.FIRST, Instant.EPOCH))
        .hasMessageContaining("owner")
        .hasMessageContaining("' '");
    assertThatThrownBy(() -> new Lease(-3, "w", Epoch.FIRST, Instant.EPOCH))
        .hasMessage("jobId must be at least 1, but was -3");
    assertThat(new Lease(42, "w", Epoch.FIRST, Instant.EPOCH).key()).isEqualTo("42");
  }

  @Test
  void keysAndOwnersThatAStoreWouldChangeAreRefused() {
    for (String bad : new String[] {"a\ud800b", "a\udc00", "x\u0000y", "\ud800"}) {
      assertThatThrownBy(() -> Validate.key(bad))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("key must be non-blank well-formed text");
      assertThatThrownBy(() -> Validate.owner(bad))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("owner must be non-blank well-formed text")
          .hasMessageNotContaining("\u0000");
    }
    assertThat(Validate.key("emoji \ud83d\ude00 ok")).isEqualTo("emoji \ud83d\ude00 ok");
  }

  @Test
  void jsonIsLeftToTheStoreButNullIsRefusedByName() {
    assertThat(Validate.json("payload", "not json, the store decides")).isNotNull();
    assertThatThrownBy(() -> Validate.json("payload", null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("payload must be JSON, but was null");
  }

  @Test
  void aRefusalExplainsItselfAndKeepsTheEpochThatWon() {
    FencedOffException e =
        new FencedOffException(
            new FencedOutcome.Superseded("7", Epoch.FIRST, Epoch.of(2), "healthy"));
    assertThat(e.getMessage())
        .isEqualTo("fenced off: 7 at epoch 1: a newer claim owns it (epoch 2, owner 'healthy')");
    assertThat(e.currentEpoch()).contains(Epoch.of(2));
    assertThat(new FencedOutcome.Accepted("7", Epoch.FIRST, false).orThrow().isAccepted()).isTrue();
    assertThatThrownBy(
            () -> new FencedOutcome.LeaseExpired("7", Epoch.FIRST, Instant.EPOCH).orThrow())
        .isInstanceOf(FencedOffException.class)
        .hasMessageContaining("nobody has reclaimed it yet");
  }
}
