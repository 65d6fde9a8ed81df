package dev.fencing.tuning;

import java.time.Duration;
import java.util.Objects;
import java.util.Random;

/**
 * How a lease length meets worker pauses (GC, I/O stalls): pauses are log-normal through {@code
 * p50} and {@code p99}, cut at {@code max}; a job pauses once, at a uniformly random moment of a
 * heartbeat interval, heartbeats included; it is fenced off although alive (a false zombie) when
 * the pause outlasts what remained of its lease.
 *
 * @param p50 the median pause, above zero
 * @param p99 the 99th percentile, at least {@code p50}
 * @param max the longest pause, at least {@code p99} and at most 24 h
 * @since 0.1
 */
public record LeaseModel(Duration p50, Duration p99, Duration max) {

  /** The 99th percentile of the standard normal distribution. */
  private static final double Z99 = 2.3263478740408408;

  private static final Duration SHORTEST = Duration.ofMillis(1);

  /** The longest lease any backend grants. */
  private static final Duration LONGEST = Duration.ofHours(24);

  /** Midpoint-rule steps over a heartbeat interval. */
  private static final int STEPS = 2_000;

  /**
   * @throws IllegalArgumentException naming the first figure out of range, with its value
   * @throws NullPointerException if any figure is null
   */
  public LeaseModel {
    Objects.requireNonNull(p50, "p50");
    Objects.requireNonNull(p99, "p99");
    Objects.requireNonNull(max, "max");
    if (p50.isNegative() || p50.isZero()) {
      throw new IllegalArgumentException("p50 must be above zero, but was " + p50);
    }
    if (p99.compareTo(p50) < 0) {
      throw new IllegalArgumentException("p99 must be at least p50 (" + p50 + "), but was " + p99);
    }
    if (max.compareTo(p99) < 0) {
      throw new IllegalArgumentException("max must be at least p99 (" + p99 + "), but was " + max);
    }
    if (max.compareTo(LONGEST) > 0) {
      throw new IllegalArgumentException("max must be at most 24 h, but was " + max);
    }
  }

  /**
   * Returns the share of live jobs fenced off at {@code lease} with a heartbeat every {@code lease
   * / heartbeatsPerLease}: the mean over the pause's start within a heartbeat interval of P(pause
   * longer than what remained of the lease).
   *
   * @param lease the lease length, between 1 ms and 24 h
   * @param heartbeatsPerLease renewals per lease, 2 to 100
   * @throws IllegalArgumentException naming the parameter out of range, with its value
   */
  public double falseZombieRate(Duration lease, int heartbeatsPerLease) {
    // the backends' own message for a lease length out of range
    if (lease == null || lease.compareTo(SHORTEST) < 0 || lease.compareTo(LONGEST) > 0) {
      throw new IllegalArgumentException(
          "leaseLength must be between " + SHORTEST + " and " + LONGEST + ", but was " + lease);
    }
    return rate(millis(lease), beats(heartbeatsPerLease));
  }

  /**
   * Returns the shortest lease whose {@link #falseZombieRate} is below {@code maxRate}, to within 1
   * %; 24 h if none is.
   *
   * @param maxRate the highest acceptable false-zombie rate, above 0 and below 1
   * @param heartbeatsPerLease renewals per lease, 2 to 100
   * @throws IllegalArgumentException naming the parameter out of range, with its value
   */
  public Duration shortestLeaseBelow(double maxRate, int heartbeatsPerLease) {
    if (!(maxRate > 0 && maxRate < 1)) {
      throw new IllegalArgumentException("maxRate must be above 0 and below 1, but was " + maxRate);
    }
    int beats = beats(heartbeatsPerLease);
    double low = 0.001;
    double high = millis(LONGEST);
    // bisection on a log scale: the rate falls as the lease grows
    while (high / low > 1.01) {
      double mid = Math.sqrt(low * high);
      if (rate(millis(Duration.ofNanos((long) (mid * 1e6))), beats) < maxRate) {
        high = mid;
      } else {
        low = mid;
      }
    }
    return Duration.ofNanos((long) (high * 1e6));
  }

  /** Returns the probability that a pause lasts longer than {@code pause}, above zero. */
  double exceeds(Duration pause) {
    return exceedsMillis(millis(pause));
  }

  /** Returns a pause drawn from the distribution. */
  public Duration sample(Random random) {
    double pause = millis(p50) * Math.exp(sigma() * random.nextGaussian());
    return Duration.ofNanos((long) (Math.min(pause, millis(max)) * 1e6));
  }

  private double rate(double leaseMs, int heartbeatsPerLease) {
    double beatMs = leaseMs / heartbeatsPerLease;
    double sum = 0;
    // the mean over the pause's start t in [0, beat) of P(pause > lease - t), by the midpoint rule
    for (int i = 0; i < STEPS; i++) {
      sum += exceedsMillis(leaseMs - beatMs * (i + 0.5) / STEPS);
    }
    return sum / STEPS;
  }

  private double exceedsMillis(double ms) {
    // ms is above zero: a pause starts within a heartbeat interval, shorter than the lease
    if (ms >= millis(max)) {
      return 0;
    }
    double sigma = sigma();
    if (sigma == 0) {
      return ms < millis(p50) ? 1 : 0;
    }
    return 1 - normalCdf(Math.log(ms / millis(p50)) / sigma);
  }

  private double sigma() {
    return Math.log(millis(p99) / millis(p50)) / Z99;
  }

  private static int beats(int heartbeatsPerLease) {
    if (heartbeatsPerLease < 2 || heartbeatsPerLease > 100) {
      throw new IllegalArgumentException(
          "heartbeatsPerLease must be between 2 and 100, but was " + heartbeatsPerLease);
    }
    return heartbeatsPerLease;
  }

  /** The standard normal CDF through erf by Abramowitz and Stegun 7.1.26 (error below 1.5e-7). */
  private static double normalCdf(double z) {
    double x = Math.abs(z) / Math.sqrt(2);
    double t = 1 / (1 + 0.3275911 * x);
    double poly =
        t
            * (0.254829592
                + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))));
    double erf = 1 - poly * Math.exp(-x * x);
    return (1 + Math.signum(z) * erf) / 2;
  }

  private static double millis(Duration d) {
    return d.toNanos() / 1e6;
  }
}
