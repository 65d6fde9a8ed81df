package dev.fencing.cli.internal;

import dev.fencing.internal.Validate;
import dev.fencing.tuning.LeaseModel;
import java.io.PrintWriter;
import java.math.BigDecimal;
import java.math.MathContext;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code fencing tune}: the lease-tuning report's model and rule, from the operator's own pause
 * figures. The measured parts of the full report (real kills, live workers, heartbeat cost) need
 * worker processes and a scratch schema; they stay in the benchmarks module.
 */
@Command(
    name = "tune",
    mixinStandardHelpOptions = true,
    description = {
      "Recommend a lease length from your workers' pauses (GC, I/O stalls, ...): for each",
      "candidate, the share of live workers fenced off anyway (model) and the takeover time",
      "of a killed worker's job. Needs no database. Full measured report: docs/BENCHMARKS.md."
    })
public final class TuneCommand implements Runnable {

  @Option(names = "--p50", required = true, description = "median pause, e.g. 20ms")
  Duration p50 = Duration.ZERO;

  @Option(names = "--p99", required = true, description = "99th percentile pause, e.g. 800ms")
  Duration p99 = Duration.ZERO;

  @Option(names = "--max", required = true, description = "longest pause, e.g. 2s")
  Duration max = Duration.ZERO;

  @Option(
      names = "--leases",
      split = ",",
      defaultValue = "1s,2s,5s,10s,30s,1m,5m",
      description = "candidate leases (default: ${DEFAULT-VALUE})")
  List<Duration> leases = List.of();

  @Option(
      names = "--heartbeats-per-lease",
      defaultValue = "3",
      description = "renewals per lease, 2 to 100 (default: ${DEFAULT-VALUE})")
  int heartbeatsPerLease = 3;

  @Option(
      names = "--max-zombie-rate",
      defaultValue = "0.1",
      description = "highest acceptable false-zombie rate in percent (default: ${DEFAULT-VALUE})")
  double maxZombiePercent = 0.1;

  @Option(
      names = "--safety-factor",
      defaultValue = "3",
      description = "the lease must exceed p99 × this, 1 to 100 (default: ${DEFAULT-VALUE})")
  double safetyFactor = 3;

  @Spec picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    checkSettings();
    LeaseModel model = new LeaseModel(p50, p99, max);
    double maxRate = maxZombiePercent / 100;
    Duration floor = Duration.ofNanos((long) (p99.toNanos() * safetyFactor));
    PrintWriter out = spec.commandLine().getOut();
    out.printf(
        Locale.ROOT,
        "pauses p50=%s p99=%s max=%s (log-normal, cut at max); heartbeat = lease / %d%n%n",
        Durations.show(p50),
        Durations.show(p99),
        Durations.show(max),
        heartbeatsPerLease);
    TextTable table =
        new TextTable(
                "LEASE",
                "HEARTBEAT",
                "FALSE ZOMBIES",
                "TAKEOVER MEAN",
                "TAKEOVER MAX",
                "MEETS RULE")
            .rightAligned(0, 1, 2, 3, 4);
    Duration best = null;
    for (Duration lease : leases.stream().sorted().toList()) {
      double rate = model.falseZombieRate(lease, heartbeatsPerLease);
      Duration beat = lease.dividedBy(heartbeatsPerLease);
      String verdict = verdict(rate < maxRate, lease.compareTo(floor) > 0);
      if (best == null && verdict.equals("yes")) {
        best = lease;
      }
      table.row(
          Durations.show(lease),
          Durations.human(beat),
          percent(rate),
          Durations.human(lease.minus(beat.dividedBy(2))),
          Durations.show(lease),
          verdict);
    }
    table.print(out);
    out.println();
    Duration needed = model.shortestLeaseBelow(maxRate, heartbeatsPerLease);
    needed = needed.compareTo(floor) > 0 ? needed : floor;
    out.println(
        best == null
            ? "RECOMMENDED: none of the candidates; try a lease of at least "
                + Durations.human(needed.plusMillis(999).withNanos(0))
            : "RECOMMENDED: lease "
                + Durations.show(best)
                + ", heartbeat "
                + Durations.human(best.dividedBy(heartbeatsPerLease)));
    out.printf(
        Locale.ROOT,
        "rule: the shortest candidate with false zombies below %s and a lease above p99 × %s = %s;"
            + " by the model the shortest such lease is about %s.%n"
            + "takeover: a killed worker's job is claimed again after the rest of its lease plus"
            + " your claim poll interval.%n",
        percent(maxRate),
        round(safetyFactor),
        Durations.human(floor),
        Durations.human(needed));
  }

  private void checkSettings() {
    Validate.between("heartbeats-per-lease", heartbeatsPerLease, 2, 100);
    Validate.above("max-zombie-rate (percent)", maxZombiePercent, 0, 100);
    Validate.between("safety-factor", safetyFactor, 1, 100);
    for (Duration lease : leases) {
      if (lease.compareTo(Duration.ofMillis(100)) < 0
          || lease.compareTo(Duration.ofHours(24)) > 0) {
        throw new IllegalArgumentException(
            "leases must be between 100ms and 24h, but had " + Durations.show(lease));
      }
    }
  }

  private static String verdict(boolean rateOk, boolean longEnough) {
    if (rateOk && longEnough) {
      return "yes";
    }
    return "no: "
        + (rateOk ? "" : "zombie rate")
        + (!rateOk && !longEnough ? ", " : "")
        + (longEnough ? "" : "<= safety × p99");
  }

  private static String percent(double fraction) {
    double value = fraction * 100;
    if (value == 0) {
      return "0 %";
    }
    if (value < 1e-4) {
      return "< 0.0001 %";
    }
    return round(value) + " %";
  }

  private static String round(double value) {
    return new BigDecimal(value, new MathContext(2)).stripTrailingZeros().toPlainString();
  }
}
