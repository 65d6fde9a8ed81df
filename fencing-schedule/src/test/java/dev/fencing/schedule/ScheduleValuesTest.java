package dev.fencing.schedule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class ScheduleValuesTest {

  private static Schedule.Builder valid() {
    return Schedule.builder("s").queue("q").every(Duration.ofSeconds(1));
  }

  @Test
  void badValuesAreRefusedNamingTheParameterAndTheValue() {
    assertThatThrownBy(() -> valid().revision(0).build())
        .hasMessageContaining("revision")
        .hasMessageContaining("0");
    assertThatThrownBy(
            () -> Schedule.builder("a b").queue("q").every(Duration.ofSeconds(1)).build())
        .hasMessage("name must be 1 to 100 of A-Z a-z 0-9 . _ -, but was 'a b'");
    assertThatThrownBy(() -> valid().queue("Q").build()).hasMessageContaining("queue");
    assertThatThrownBy(() -> valid().grace(Duration.ofSeconds(-1)).build())
        .hasMessage("grace must be between 0 and 366 days, but was PT-1S");
    assertThatThrownBy(() -> Schedule.builder("s").queue("q").build())
        .hasMessage("trigger must be given (cron or every), but schedule s has none");
    assertThatThrownBy(() -> Trigger.every(Duration.ofMillis(99)))
        .hasMessage(
            "interval must be between 100 ms and 366 days in whole milliseconds, but was PT0.099S");
    assertThatThrownBy(() -> Trigger.every(Duration.ofNanos(1_000_000_001L)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Trigger.cron("0 0 31 2 * * *"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Missed.runAll(0))
        .hasMessage("cap must be between 1 and 1000, but was 0");
    assertThatThrownBy(() -> new SchedulerStats(0, -1, 0, 0, 0, 0))
        .hasMessage("skipped must not be negative, but was -1");
  }

  @Test
  void theDefaultsAreStated() {
    Schedule s = valid().build();
    assertThat(s.revision()).isEqualTo(1);
    assertThat(s.payload()).isEqualTo("{}");
    assertThat(s.zone().getId()).isEqualTo("Z");
    assertThat(s.missed()).isEqualTo(Missed.runOnce());
    assertThat(s.grace()).isEqualTo(Schedule.DEFAULT_GRACE);
  }
}
