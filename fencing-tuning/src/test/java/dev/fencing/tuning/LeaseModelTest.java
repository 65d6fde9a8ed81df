package dev.fencing.tuning;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.time.Duration;
import java.util.Random;
import org.junit.jupiter.api.Test;

class LeaseModelTest {

  private static final LeaseModel GC = model(20, 800, 2000);

  private static final double RATE_1S = 0.009603590738067125;

  private static final double RATE_2S = 0.0027396474214219507;

  @Test
  void fencesOffOnlyPausesThatOutlastTheRemainingLease() {
    // pinned figures (fencing tune prints them as 0.96 % and 0.27 %): a change to the maths shows
    assertThat(GC.falseZombieRate(Duration.ofSeconds(1), 3)).isCloseTo(RATE_1S, within(1e-12));
    assertThat(GC.falseZombieRate(Duration.ofSeconds(2), 3)).isCloseTo(RATE_2S, within(1e-12));
    // the longest pause (2 s) never outlasts what remains of a 3 s lease renewed every second
    assertThat(GC.falseZombieRate(Duration.ofSeconds(3), 3)).isZero();
    // more heartbeats leave more of the lease at the pause
    assertThat(GC.falseZombieRate(Duration.ofSeconds(1), 10))
        .isLessThan(GC.falseZombieRate(Duration.ofSeconds(1), 3));
  }

  @Test
  void exceedsFollowsTheLogNormalThroughP50AndP99CutAtMax() {
    assertThat(GC.exceeds(Duration.ofMillis(20))).isCloseTo(0.5, within(1e-6));
    assertThat(GC.exceeds(Duration.ofMillis(800))).isCloseTo(0.01, within(1e-6));
    assertThat(GC.exceeds(Duration.ofNanos(500_000))).isCloseTo(0.99, within(1e-6));
    assertThat(GC.exceeds(Duration.ofMillis(1999))).isPositive();
    assertThat(GC.exceeds(Duration.ofMillis(2000))).isZero();
    LeaseModel fixed = model(100, 100, 200);
    assertThat(fixed.exceeds(Duration.ofMillis(99))).isEqualTo(1);
    assertThat(fixed.exceeds(Duration.ofMillis(100))).isZero();
    assertThat(fixed.exceeds(Duration.ofMillis(150))).isZero();
  }

  @Test
  void shortestLeaseBelowIsWhereTheRateCrossesTheLimit() {
    Duration lease = GC.shortestLeaseBelow(0.001, 3);

    assertThat(lease.toMillis()).isBetween(2400L, 2500L);
    assertThat(GC.falseZombieRate(lease, 3)).isLessThan(0.001);
    assertThat(GC.falseZombieRate(Duration.ofNanos(lease.toNanos() * 98 / 100), 3))
        .isGreaterThanOrEqualTo(0.001);
  }

  @Test
  void aSampleAboveTheMedianComesFromADrawAboveTheMean() {
    Random draws = new Random(7);
    double first = draws.nextGaussian();

    Duration pause = GC.sample(new Random(7));

    assertThat(Integer.signum(pause.compareTo(Duration.ofMillis(20))))
        .isEqualTo(first > 0 ? 1 : -1);
  }

  @Test
  void samplesStayWithinTheCutAndAroundTheMedian() {
    Random random = new Random(42);
    int below = 0;
    for (int i = 0; i < 10_000; i++) {
      Duration pause = GC.sample(random);
      assertThat(pause).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(2));
      below += pause.compareTo(Duration.ofMillis(20)) < 0 ? 1 : 0;
    }
    assertThat(below).isBetween(4_800, 5_200);
  }

  @Test
  void refusesFiguresOutOfRangeNamingThemAndTheirValue() {
    assertThatThrownBy(() -> model(0, 1, 2))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("p50 must be above zero, but was PT0S");
    assertThatThrownBy(() -> model(-1, 1, 2))
        .hasMessage("p50 must be above zero, but was PT-0.001S");
    assertThat(model(20, 800, 86_400_000).max()).isEqualTo(Duration.ofHours(24));
    assertThat(model(20, 20, 20).p99()).isEqualTo(Duration.ofMillis(20));
    assertThatThrownBy(() -> model(20, 10, 2000))
        .hasMessage("p99 must be at least p50 (PT0.02S), but was PT0.01S");
    assertThatThrownBy(() -> model(20, 800, 700))
        .hasMessage("max must be at least p99 (PT0.8S), but was PT0.7S");
    assertThatThrownBy(() -> model(20, 800, 86_400_001))
        .hasMessage("max must be at most 24 h, but was PT24H0.001S");
    assertThatThrownBy(() -> new LeaseModel(null, Duration.ZERO, Duration.ZERO))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("p50");
  }

  @Test
  void refusesSettingsOutOfRangeNamingThemAndTheirValue() {
    assertThatThrownBy(() -> GC.falseZombieRate(Duration.ofSeconds(1), 1))
        .hasMessage("heartbeatsPerLease must be between 2 and 100, but was 1");
    assertThatThrownBy(() -> GC.falseZombieRate(Duration.ofSeconds(1), 101))
        .hasMessage("heartbeatsPerLease must be between 2 and 100, but was 101");
    assertThat(GC.falseZombieRate(Duration.ofSeconds(1), 2)).isPositive();
    assertThat(GC.falseZombieRate(Duration.ofSeconds(1), 100)).isPositive();
    assertThatThrownBy(() -> GC.falseZombieRate(Duration.ZERO, 3))
        .hasMessage("leaseLength must be between PT0.001S and PT24H, but was PT0S");
    assertThatThrownBy(() -> GC.falseZombieRate(Duration.ofNanos(999_999), 3))
        .hasMessage("leaseLength must be between PT0.001S and PT24H, but was PT0.000999999S");
    assertThatThrownBy(() -> GC.falseZombieRate(Duration.ofHours(24).plusNanos(1), 3))
        .hasMessage("leaseLength must be between PT0.001S and PT24H, but was PT24H0.000000001S");
    assertThatThrownBy(() -> GC.falseZombieRate(null, 3))
        .hasMessage("leaseLength must be between PT0.001S and PT24H, but was null");
    assertThat(GC.falseZombieRate(Duration.ofMillis(1), 3)).isGreaterThan(0.9);
    assertThat(GC.falseZombieRate(Duration.ofHours(24), 3)).isZero();
    assertThatThrownBy(() -> GC.shortestLeaseBelow(0, 3))
        .hasMessage("maxRate must be above 0 and below 1, but was 0.0");
    assertThatThrownBy(() -> GC.shortestLeaseBelow(1, 3))
        .hasMessage("maxRate must be above 0 and below 1, but was 1.0");
    assertThatThrownBy(() -> GC.shortestLeaseBelow(Double.NaN, 3))
        .hasMessage("maxRate must be above 0 and below 1, but was NaN");
    assertThatThrownBy(() -> GC.shortestLeaseBelow(0.001, 1))
        .hasMessage("heartbeatsPerLease must be between 2 and 100, but was 1");
  }

  private static LeaseModel model(long p50, long p99, long max) {
    return new LeaseModel(Duration.ofMillis(p50), Duration.ofMillis(p99), Duration.ofMillis(max));
  }
}
