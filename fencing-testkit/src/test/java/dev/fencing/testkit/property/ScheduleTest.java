package dev.fencing.testkit.property;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
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
    assertThatThrownBy(() -> new Schedules(3, 2, 1, 1, 5))
        .hasMessage("bounds must be ordered, but were workers 3..2, jobs 1..1");
    assertThatThrownBy(() -> new Schedules(2, 4, 1, 3, 0))
        .hasMessage("maxSteps must be between 1 and 1000, but was 0");
    assertThatThrownBy(() -> new Schedules(2, 9, 1, 3, 5))
        .hasMessage("workers must be between 1 and 8, but was 9");
  }

  @Test
  void generatedSchedulesStayWithinTheirBounds() {
    Schedules.defaults()
        .sample(42, 500)
        .forEach(
            s -> {
              assertThat(s.workers()).isBetween(2, 4);
              assertThat(s.jobs()).isBetween(1, 3);
              assertThat(s.steps()).hasSizeBetween(1, 30);
            });
  }

  @Test
  void theSameSeedDrawsTheSameSchedulesAndAnotherSeedOthers() {
    List<Schedule> first = Schedules.defaults().sample(7, 50);
    assertThat(Schedules.defaults().sample(7, 50)).isEqualTo(first);
    assertThat(Schedules.defaults().sample(8, 50)).isNotEqualTo(first);
  }

  @Test
  void drawnSchedulesUseTheWholeRangeOfLengthsAndWorkers() {
    List<Schedule> drawn = Schedules.defaults().sample(3, 500);
    assertThat(drawn).extracting(s -> s.steps().size()).contains(1, 30);
    assertThat(drawn).extracting(Schedule::workers).contains(2, 3, 4);
    assertThat(drawn).extracting(Schedule::jobs).contains(1, 2, 3);
    // the same owner reclaiming its own job needs one worker to claim twice in a schedule
    assertThat(drawn)
        .filteredOn(
            s ->
                s.steps().stream().filter(st -> st instanceof Step.Claim && st.actor() == 0).count()
                    >= 2)
        .hasSizeGreaterThan(100);
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
