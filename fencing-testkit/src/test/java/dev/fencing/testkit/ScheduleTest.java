package dev.fencing.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import net.jqwik.api.Arbitrary;
import org.junit.jupiter.api.Test;

class ScheduleTest {

  @Test
  void aStepNamingAWorkerTheScheduleDoesNotHaveIsRefusedWithWhere() {
    assertThatThrownBy(
            () -> new Schedule(2, 1, List.of(new Step.Claim(0, true), new Step.Complete(5, 0))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "steps[1] (w5 completes under lease #0) names worker w5, but the schedule has workers"
                + " w0 to w1");
  }

  @Test
  void countsOutOfRangeAreRefusedByName() {
    assertThatThrownBy(() -> new Schedule(0, 1, List.of()))
        .hasMessage("workers must be between 1 and 8, but was 0");
    assertThatThrownBy(() -> new Schedule(2, 0, List.of()))
        .hasMessage("jobs must be between 1 and 100, but was 0");
    assertThatThrownBy(() -> Schedules.schedules(3, 2, 1, 1, 5))
        .hasMessageContaining("bounds must be ordered");
  }

  @Test
  void generatedSchedulesStayWithinTheirBounds() {
    Arbitrary<Schedule> schedules = Schedules.schedules();
    schedules
        .sampleStream()
        .limit(500)
        .forEach(
            s -> {
              assertThat(s.workers()).isBetween(2, 4);
              assertThat(s.jobs()).isBetween(1, 3);
              assertThat(s.steps()).hasSizeBetween(1, 30);
            });
  }

  @Test
  void aScheduleReadsAsATimeline() {
    Schedule schedule =
        new Schedule(
            2, 1, List.of(new Step.Claim(0, true), new Step.Stall(0), new Step.LeasesRunOut()));
    assertThat(schedule.toString())
        .isEqualTo(
            "2 workers, 1 jobs:\n"
                + "  1. w0 claims (short lease)\n"
                + "  2. w0 stalls (SIGSTOP)\n"
                + "  3. time passes: every short lease runs out");
  }
}
