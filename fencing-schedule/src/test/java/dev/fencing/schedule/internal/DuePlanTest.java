package dev.fencing.schedule.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.schedule.Missed;
import dev.fencing.schedule.Schedule;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Slots every 10 s; times are seconds after 2026-01-01T00:00Z; grace 5 s unless said. */
class DuePlanTest {

  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
  private static final Duration GRACE = Duration.ofSeconds(5);
  private static final Slots EVERY_10_S =
      TriggerSlots.of(Schedule.builder("s").queue("q").every(Duration.ofSeconds(10)).build());

  private static Instant at(double seconds) {
    return T0.plusMillis(Math.round(seconds * 1000));
  }

  private static List<Instant> slots(int... seconds) {
    return Arrays.stream(seconds).mapToObj(s -> T0.plusSeconds(s)).toList();
  }

  private static Optional<DuePlan> plan(double mark, double now, Missed missed) {
    return DuePlan.of(EVERY_10_S, at(mark), at(now), missed, GRACE);
  }

  @Test
  void nothingIsDueBetweenSlots() {
    assertThat(plan(10, 19.9, Missed.runAll(10))).isEmpty();
    assertThat(plan(10, 10, Missed.runOnce())).isEmpty();
  }

  @Test
  void aSlotSeenWithinItsGraceIsOnTimeUnderEveryPolicy() {
    for (Missed missed : List.of(Missed.runOnce(), Missed.runAll(3), Missed.skip())) {
      assertThat(plan(10, 20.003, missed)).contains(new DuePlan(slots(20), 0, at(20)));
      assertThat(plan(10, 25, missed)).contains(new DuePlan(slots(20), 0, at(20)));
    }
  }

  @Test
  void afterDowntimeWithAnOnTimeSlot() {
    // due: 10..60; 60 is on time (2 s late), 10..50 are missed
    assertThat(plan(0, 62, Missed.runOnce())).contains(new DuePlan(slots(60), 5, at(60)));
    assertThat(plan(0, 62, Missed.skip())).contains(new DuePlan(slots(60), 5, at(60)));
    assertThat(plan(0, 62, Missed.runAll(10)))
        .contains(new DuePlan(slots(10, 20, 30, 40, 50, 60), 0, at(60)));
    assertThat(plan(0, 62, Missed.runAll(2))).contains(new DuePlan(slots(40, 50, 60), 3, at(60)));
  }

  @Test
  void afterDowntimeWithoutAnOnTimeSlot() {
    // due: 10..60, all missed (60 is 8 s late)
    assertThat(plan(0, 68, Missed.runOnce())).contains(new DuePlan(slots(60), 5, at(60)));
    assertThat(plan(0, 68, Missed.skip())).contains(new DuePlan(List.of(), 6, at(60)));
    assertThat(plan(0, 68, Missed.runAll(3))).contains(new DuePlan(slots(40, 50, 60), 3, at(60)));
  }

  @Test
  void aMarkBetweenSlotsCountsOnlySlotsAfterIt() {
    // registered at 12.5: due 20..40, 40 on time
    assertThat(plan(12.5, 41, Missed.runAll(10)))
        .contains(new DuePlan(slots(20, 30, 40), 0, at(40)));
    assertThat(plan(12.5, 41, Missed.skip())).contains(new DuePlan(slots(40), 2, at(40)));
  }

  @Test
  void withoutGraceOnlyASlotAtNowIsOnTime() {
    assertThat(DuePlan.of(EVERY_10_S, at(0), at(20), Missed.skip(), Duration.ZERO))
        .contains(new DuePlan(slots(20), 1, at(20)));
    assertThat(DuePlan.of(EVERY_10_S, at(0), at(20.001), Missed.skip(), Duration.ZERO))
        .contains(new DuePlan(List.of(), 2, at(20)));
  }

  @Test
  void aGraceLongerThanTheIntervalMakesSeveralSlotsOnTime() {
    assertThat(DuePlan.of(EVERY_10_S, at(0), at(31), Missed.skip(), Duration.ofSeconds(25)))
        .contains(new DuePlan(slots(10, 20, 30), 0, at(30)));
  }
}
