package dev.fencing.testkit.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import org.junit.jupiter.api.Test;

/** The clock stands still until it is moved, only forward, and every zone of it moves with it. */
class ManualClockTest {

  private static final Instant START = Instant.parse("2030-01-01T00:00:00Z");

  @Test
  void itMovesOnlyWhenToldAndOnlyForward() {
    ManualClock clock = ManualClock.at(START);
    assertThat(clock.instant()).isEqualTo(START);
    assertThat(clock.advance(Duration.ofSeconds(5))).isEqualTo(START.plusSeconds(5));
    clock.set(START.plusSeconds(60));
    assertThat(clock.instant()).isEqualTo(START.plusSeconds(60));

    assertThatThrownBy(() -> clock.advance(Duration.ofSeconds(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("duration must be zero or more, but was PT-1S");
    assertThatThrownBy(() -> clock.set(START))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "instant must not be before the clock's 2030-01-01T00:01:00Z, but was"
                + " 2030-01-01T00:00:00Z");
    assertThat(clock.instant()).isEqualTo(START.plusSeconds(60));
  }

  @Test
  void aZoneOfTheClockReadsAndMovesTheSameInstant() {
    ManualClock clock = ManualClock.at(START);
    ManualClock paris = clock.withZone(ZoneId.of("Europe/Paris"));
    paris.advance(Duration.ofHours(1));
    assertThat(clock.instant()).isEqualTo(START.plusSeconds(3_600));
    assertThat(paris.getZone()).isEqualTo(ZoneId.of("Europe/Paris"));
    assertThat(clock.getZone()).isEqualTo(java.time.ZoneOffset.UTC);
    assertThat(ManualClock.startingNow().instant()).isBeforeOrEqualTo(Instant.now());
  }
}
