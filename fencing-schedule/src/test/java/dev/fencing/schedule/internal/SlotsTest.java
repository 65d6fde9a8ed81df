package dev.fencing.schedule.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.schedule.Schedule;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class SlotsTest {

  private static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");

  private static Slots cron(String expression, ZoneId zone) {
    return TriggerSlots.of(Schedule.builder("s").queue("q").cron(expression).zone(zone).build());
  }

  private static Slots every(Duration interval) {
    return TriggerSlots.of(Schedule.builder("s").queue("q").every(interval).build());
  }

  private static List<Instant> forward(Slots slots, String after, int n) {
    List<Instant> out = new ArrayList<>();
    Optional<Instant> s = slots.next(Instant.parse(after));
    for (int i = 0; i < n && s.isPresent(); i++, s = slots.next(s.get())) {
      out.add(s.get());
    }
    return out;
  }

  private static List<Instant> instants(String... texts) {
    return java.util.Arrays.stream(texts).map(Instant::parse).toList();
  }

  @Test
  void intervalSlotsAreWholeMultiplesSinceTheEpoch() {
    Slots slots = every(Duration.ofSeconds(10));
    assertThat(forward(slots, "2026-01-01T00:00:00Z", 2))
        .isEqualTo(instants("2026-01-01T00:00:10Z", "2026-01-01T00:00:20Z"));
    assertThat(slots.next(Instant.parse("2026-01-01T00:00:09.999999Z")))
        .contains(Instant.parse("2026-01-01T00:00:10Z"));
    assertThat(slots.latest(Instant.parse("2026-01-01T00:00:19.999Z")))
        .contains(Instant.parse("2026-01-01T00:00:10Z"));
    assertThat(slots.latest(Instant.parse("2026-01-01T00:00:20Z")))
        .contains(Instant.parse("2026-01-01T00:00:20Z"));
    assertThat(
            slots.count(
                Instant.parse("2026-01-01T00:00:00Z"), Instant.parse("2026-01-01T01:00:00Z")))
        .isEqualTo(360);
    assertThat(
            slots.count(
                Instant.parse("2026-01-01T00:00:05Z"), Instant.parse("2026-01-01T00:00:09Z")))
        .isZero();
  }

  @Test
  void anIntervalIgnoresTheZoneAndDaylightSaving() {
    Slots slots = every(Duration.ofHours(1));
    // Berlin puts its clocks back at 01:00Z on 2026-10-25: still one slot per elapsed hour
    assertThat(forward(slots, "2026-10-24T23:30:00Z", 3))
        .isEqualTo(
            instants("2026-10-25T00:00:00Z", "2026-10-25T01:00:00Z", "2026-10-25T02:00:00Z"));
  }

  @Test
  void unixCronInUtcAndInAZone() {
    assertThat(forward(cron("0 3 * * *", ZoneId.of("UTC")), "2026-01-01T00:00:00Z", 2))
        .isEqualTo(instants("2026-01-01T03:00:00Z", "2026-01-02T03:00:00Z"));
    // 03:00 in Berlin is 02:00Z in winter and 01:00Z in summer
    assertThat(forward(cron("0 3 * * *", BERLIN), "2026-01-01T00:00:00Z", 1))
        .isEqualTo(instants("2026-01-01T02:00:00Z"));
    assertThat(forward(cron("0 3 * * *", BERLIN), "2026-07-01T00:00:00Z", 1))
        .isEqualTo(instants("2026-07-01T01:00:00Z"));
  }

  @Test
  void sixFieldsPutSecondsFirst() {
    Slots slots = cron("*/10 * * * * *", ZoneId.of("UTC"));
    assertThat(forward(slots, "2026-01-01T00:00:00.5Z", 2))
        .isEqualTo(instants("2026-01-01T00:00:10Z", "2026-01-01T00:00:20Z"));
    assertThat(slots.latest(Instant.parse("2026-01-01T00:00:19.9Z")))
        .contains(Instant.parse("2026-01-01T00:00:10Z"));
    assertThat(slots.latest(Instant.parse("2026-01-01T00:00:20Z")))
        .contains(Instant.parse("2026-01-01T00:00:20Z"));
    assertThat(
            slots.count(
                Instant.parse("2026-01-01T00:00:00Z"), Instant.parse("2026-01-01T00:01:00Z")))
        .isEqualTo(6);
  }

  @Test
  void aWallClockTimeThatDoesNotExistHasNoSlot() {
    // 2026-03-29 in Berlin: 02:00 CET jumps to 03:00 CEST, so there is no 02:30 that day
    assertThat(forward(cron("30 2 * * *", BERLIN), "2026-03-28T12:00:00Z", 2))
        .isEqualTo(instants("2026-03-30T00:30:00Z", "2026-03-31T00:30:00Z"));
  }

  @Test
  void aWallClockTimeThatHappensTwiceHasOneSlotForwardAndBackward() {
    // 2026-10-25 in Berlin: 03:00 CEST goes back to 02:00 CET, so 02:30 happens at 00:30Z and
    // 01:30Z
    Slots slots = cron("30 2 * * *", BERLIN);
    assertThat(forward(slots, "2026-10-24T12:00:00Z", 2))
        .isEqualTo(instants("2026-10-25T00:30:00Z", "2026-10-26T01:30:00Z"));
    assertThat(slots.latest(Instant.parse("2026-10-25T01:45:00Z")))
        .contains(Instant.parse("2026-10-25T00:30:00Z"));
    assertThat(
            slots.count(
                Instant.parse("2026-10-24T12:00:00Z"), Instant.parse("2026-10-25T12:00:00Z")))
        .isEqualTo(1);
  }

  @Test
  void anHourlyCronHasASlotEveryElapsedHourAcrossBothChanges() {
    Slots slots = cron("0 * * * *", BERLIN);
    assertThat(forward(slots, "2026-03-28T23:30:00Z", 3))
        .isEqualTo(
            instants("2026-03-29T00:00:00Z", "2026-03-29T01:00:00Z", "2026-03-29T02:00:00Z"));
    assertThat(forward(slots, "2026-10-24T23:30:00Z", 3))
        .isEqualTo(
            instants("2026-10-25T00:00:00Z", "2026-10-25T01:00:00Z", "2026-10-25T02:00:00Z"));
  }

  @Test
  void aBadExpressionIsRefusedNamingIt() {
    assertThatThrownBy(() -> CronSlots.check("61 * * * *"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'61 * * * *'")
        .hasMessageContaining("not in range");
    assertThatThrownBy(() -> CronSlots.check("* * *"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "expression must have 5 fields (Unix) or 6 (seconds first), but had 3: '* * *'");
  }
}
