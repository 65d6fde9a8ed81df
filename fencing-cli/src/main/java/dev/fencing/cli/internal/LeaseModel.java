package dev.fencing.cli.internal;

import java.time.Duration;

/**
 * The model part of the lease-tuning report (docs/BENCHMARKS.md, "Lease-length tuning"), without
 * its measurements: worker pauses are log-normal through p50 and p99, cut at max; a job pauses
 * once, at a uniformly random moment of a heartbeat interval, heartbeats included; it is fenced off
 * although alive (a false zombie) when the pause outlasts what remained of its lease.
 *
 * @param p50 the median pause, above zero
 * @param p99 the 99th percentile, at least p50
 * @param max the longest pause, at least p99 and at most 24 h
 */
record LeaseModel(Duration p50, Duration p99, Duration max) {

  /** The 99th percentile of the standard normal distribution. */
  private static final double Z99 = 2.3263478740408408;

  private static final Duration LONGEST = Duration.ofHours(24);

  /**
   * @throws IllegalArgumentException naming the first figure out of range, with its value
   */
  LeaseModel {
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

  /** The share of live jobs fenced off at {@code lease} with a heartbeat every lease / beats. */
  double falseZombieRate(Duration lease, int heartbeatsPerLease) {
    double leaseMs = millis(lease);
    double beatMs = leaseMs / heartbeatsPerLease;
    int steps = 2_000;
    double sum = 0;
    // the mean over the pause's start t in [0, beat) of P(pause > lease - t), by the midpoint rule
    for (int i = 0; i < steps; i++) {
      sum += exceeds(leaseMs - beatMs * (i + 0.5) / steps);
    }
    return sum / steps;
  }

  /** The shortest lease whose false-zombie rate is below {@code maxRate}, to within 1 %. */
  Duration shortestLeaseBelow(double maxRate, int heartbeatsPerLease) {
    double low = 0.001;
    double high = millis(LONGEST);
    // bisection on a log scale: the rate falls as the lease grows
    while (high / low > 1.01) {
      double mid = Math.sqrt(low * high);
      if (falseZombieRate(Duration.ofNanos((long) (mid * 1e6)), heartbeatsPerLease) < maxRate) {
        high = mid;
      } else {
        low = mid;
      }
    }
    return Duration.ofNanos((long) (high * 1e6));
  }

  /** P(pause longer than {@code ms} milliseconds). */
  double exceeds(double ms) {
    if (ms >= millis(max)) {
      return 0;
    }
    if (ms <= 0) {
      return 1;
    }
    double sigma = Math.log(millis(p99) / millis(p50)) / Z99;
    if (sigma == 0) {
      return ms < millis(p50) ? 1 : 0;
    }
    return 1 - normalCdf(Math.log(ms / millis(p50)) / sigma);
  }

  /** The standard normal CDF through erf by Abramowitz and Stegun 7.1.26 (error below 1.5e-7). */
  private static double normalCdf(double z) {
    double x = Math.abs(z) / Math.sqrt(2);
    double t = 1 / (1 + 0.3275911 * x);
    double erf =
        1
            - t
                * (0.254829592
                    + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
                * Math.exp(-x * x);
    return z >= 0 ? (1 + erf) / 2 : (1 - erf) / 2;
  }

  static double millis(Duration d) {
    return d.toNanos() / 1e6;
  }
}
