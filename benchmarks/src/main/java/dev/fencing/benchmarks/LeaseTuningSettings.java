package dev.fencing.benchmarks;

import dev.fencing.internal.Validate;
import java.time.Duration;

/**
 * How the lease tuning judges and how hard it measures.
 *
 * @param heartbeatsPerLease heartbeats per lease length (heartbeat interval = lease / this), 2 to
 *     100
 * @param maxFalseZombieRate the highest acceptable share of live workers fenced off, above 0 and
 *     below 1
 * @param safetyFactor how many p99 pauses a recommended lease must exceed, 1 to 100
 * @param quick a smoke run: fewer jobs, one kill per lease up to 1 s, fewer renews
 */
public record LeaseTuningSettings(
    int heartbeatsPerLease, double maxFalseZombieRate, double safetyFactor, boolean quick) {

  /**
   * @throws IllegalArgumentException naming the first setting out of range, with its value
   */
  public LeaseTuningSettings {
    Validate.between("heartbeatsPerLease", heartbeatsPerLease, 2, 100);
    Validate.above("maxFalseZombieRate", maxFalseZombieRate, 0, 1);
    Validate.between("safetyFactor", safetyFactor, 1, 100);
  }

  /** Heartbeat = lease / 3, at most 0.1 % false zombies, lease above 3 × p99 pause. */
  public static LeaseTuningSettings defaults(boolean quick) {
    return new LeaseTuningSettings(3, 0.001, 3, quick);
  }

  Duration heartbeat(Duration lease) {
    return lease.dividedBy(heartbeatsPerLease);
  }

  /** Leases up to this are measured with real kills; longer ones are derived. */
  Duration realTakeoverUpTo() {
    return quick ? Duration.ofSeconds(1) : Duration.ofSeconds(5);
  }

  int killsPerLease() {
    return quick ? 1 : 3;
  }

  int liveJobs() {
    return quick ? 60 : 200;
  }

  /** Live-worker runs scale time down so that the lease is at most this long. */
  Duration scaledLeaseCap() {
    return quick ? Duration.ofMillis(500) : Duration.ofSeconds(1);
  }

  int renews() {
    return quick ? 500 : 3000;
  }
}
