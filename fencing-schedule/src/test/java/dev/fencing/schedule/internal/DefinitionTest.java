package dev.fencing.schedule.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.schedule.Missed;
import dev.fencing.schedule.Schedule;
import java.time.Duration;
import java.time.ZoneId;
import java.util.List;
import org.junit.jupiter.api.Test;

class DefinitionTest {

  @Test
  void aDefinitionReadsBackAsTheSameSchedule() {
    List<Schedule> schedules =
        List.of(
            Schedule.builder("nightly.report-1")
                .revision(7)
                .queue("reports")
                .cron("30 2 * * *")
                .zone(ZoneId.of("Europe/Berlin"))
                .missed(Missed.runAll(12))
                .grace(Duration.ofMinutes(5))
                .payload("{\"a\": [1,\n 2]}")
                .build(),
            Schedule.builder("tick").queue("q").every(Duration.ofMillis(1500)).build(),
            Schedule.builder("s").queue("q").cron("*/5 * * * * *").missed(Missed.skip()).build());
    for (Schedule schedule : schedules) {
      String text = Definition.of(schedule);
      assertThat(Definition.parse(schedule.name(), schedule.revision(), text)).isEqualTo(schedule);
    }
    assertThat(Definition.of(schedules.get(1)))
        .isEqualTo(
            "fencing-schedule 1\nqueue=q\ntrigger=every PT1.5S\nzone=Z\nmissed=run-once\n"
                + "grace=PT1M\npayload={}");
  }

  @Test
  void aDefinitionOfAnotherVersionIsRefused() {
    assertThatThrownBy(() -> Definition.parse("s", 1, "fencing-schedule 2\nqueue=q"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("definition of schedule s is not of this version");
  }
}
