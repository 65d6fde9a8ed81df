package dev.fencing.benchmarks;

import dev.fencing.benchmarks.LeaseTuningLive.HeartbeatCost;
import dev.fencing.benchmarks.LeaseTuningLive.ZombieRun;
import dev.fencing.benchmarks.LeaseTuningTakeover.Kill;
import dev.fencing.testkit.db.PostgresFixture;
import dev.fencing.tuning.LeaseModel;
import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/** The tuning's Markdown: the table, the recommendation and how each number was had. */
record LeaseTuningReport(
    PostgresFixture.Database db,
    List<Duration> leases,
    LeaseModel pauses,
    LeaseTuningSettings settings,
    List<Kill> kills,
    List<ZombieRun> zombies,
    HeartbeatCost cost) {

  String markdown() {
    StringBuilder md = new StringBuilder("## Lease-length tuning\n\n");
    md.append(
        String.format(
            Locale.ROOT,
            "Pauses %s: log-normal through p50 and p99, capped at max; one pause per job, and it"
                + " stops the whole worker, heartbeats included. Heartbeat = lease / %d."
                + " PostgreSQL: %s. %s run; numbers are indicative (shared CPU).%n%n",
            "p50="
                + show(pauses.p50())
                + ", p99="
                + show(pauses.p99())
                + ", max="
                + show(pauses.max()),
            settings.heartbeatsPerLease(),
            db.source(),
            settings.quick() ? "Quick" : "Full"));
    md.append("| lease | heartbeat | takeover mean / max | false zombies (run) |")
        .append(" false zombies (model) | renews/s per 1k jobs | connections busy per 1k jobs |")
        .append(" meets rule |\n");
    md.append("|---:|---:|---|---|---:|---:|---:|---|\n");
    for (int i = 0; i < leases.size(); i++) {
      md.append(row(leases.get(i), zombies.get(i)));
    }
    md.append('\n').append(recommendation());
    warnings(md);
    method(md);
    killTable(md);
    return md.toString();
  }

  private String row(Duration lease, ZombieRun run) {
    Duration beat = settings.heartbeat(lease);
    double renewsPerSecond = 1000 / (millis(beat) / 1000);
    return String.join(
            " | ",
            "| " + show(lease),
            show(beat),
            takeover(lease),
            run.refused()
                + "/"
                + run.jobs()
                + " = "
                + percent((double) run.refused() / run.jobs())
                + " (draws predict "
                + run.predicted()
                + (run.scale() == 1 ? "; real time)" : "; time × " + round(run.scale()) + ")"),
            percent(rate(lease)),
            round(renewsPerSecond),
            round(renewsPerSecond * cost.meanMillis() / 1000),
            verdict(lease))
        + " |\n";
  }

  private String takeover(Duration lease) {
    List<Kill> real = kills.stream().filter(k -> k.lease().equals(lease)).toList();
    if (!real.isEmpty()) {
      double mean = real.stream().mapToDouble(k -> millis(k.takeover())).average().orElseThrow();
      double max = real.stream().mapToDouble(k -> millis(k.takeover())).max().orElseThrow();
      return ms(mean)
          + " / "
          + ms(max)
          + " ("
          + real.size()
          + (real.size() == 1 ? " real kill)" : " real kills)");
    }
    double beat = millis(settings.heartbeat(lease));
    double mean = millis(lease) - beat / 2 + overheadMean();
    return "≈ " + ms(mean) + " / " + ms(millis(lease) + overheadMax()) + " (derived)";
  }

  /** Mean time from expiry to reclaim over the real kills: the rescuer's poll and claim. */
  private double overheadMean() {
    return kills.isEmpty()
        ? millis(LeaseTuningTakeover.POLL) / 2
        : kills.stream()
            .mapToDouble(k -> millis(k.takeover()) - millis(k.remaining()))
            .average()
            .orElseThrow();
  }

  private double overheadMax() {
    return kills.isEmpty()
        ? millis(LeaseTuningTakeover.POLL)
        : kills.stream()
            .mapToDouble(k -> millis(k.takeover()) - millis(k.remaining()))
            .max()
            .orElseThrow();
  }

  private double rate(Duration lease) {
    return pauses.falseZombieRate(lease, settings.heartbeatsPerLease());
  }

  private Duration floor() {
    return Duration.ofNanos((long) (pauses.p99().toNanos() * settings.safetyFactor()));
  }

  private String verdict(Duration lease) {
    boolean rateOk = rate(lease) < settings.maxFalseZombieRate();
    boolean longEnough = lease.compareTo(floor()) > 0;
    List<String> reasons = new ArrayList<>();
    if (!rateOk) {
      reasons.add("zombie rate");
    }
    if (!longEnough) {
      reasons.add("≤ " + round(settings.safetyFactor()) + " × p99");
    }
    return reasons.isEmpty() ? "yes" : "no: " + String.join(", ", reasons);
  }

  private String recommendation() {
    Optional<Duration> best = leases.stream().filter(l -> verdict(l).equals("yes")).findFirst();
    Duration needed =
        max(
            pauses.shortestLeaseBelow(settings.maxFalseZombieRate(), settings.heartbeatsPerLease()),
            floor());
    String head =
        best.map(
                l ->
                    "**RECOMMENDED: lease "
                        + show(l)
                        + ", heartbeat "
                        + show(settings.heartbeat(l))
                        + ".**")
            .orElse(
                "**RECOMMENDED: none of the candidates; try a lease of at least "
                    + show(needed)
                    + ".**");
    return head
        + "\n\nRule: the shortest candidate whose false-zombie rate (model) is below "
        + percent(settings.maxFalseZombieRate())
        + " and whose lease exceeds p99 pause × "
        + round(settings.safetyFactor())
        + " = "
        + show(floor())
        + ". By the model, the shortest lease that meets both is ≈ "
        + show(needed)
        + ".\n";
  }

  private void warnings(StringBuilder md) {
    for (ZombieRun run : zombies) {
      if (run.refused() > run.predicted() + 2) {
        md.append(
            String.format(
                Locale.ROOT,
                "%nWarning: at %s the run fenced off %d live workers where its drawn pauses"
                    + " predict %d; the worst unplanned stall (a late wake-up or a slow renew) was"
                    + " %s against a scaled lease of %s: the machine, not the pauses, cost the"
                    + " difference.%n",
                show(run.lease()),
                run.refused(),
                run.predicted(),
                show(run.worstStall()),
                show(Duration.ofNanos((long) (run.lease().toNanos() * run.scale())))));
      }
    }
  }

  private void method(StringBuilder md) {
    md.append("\nHow each number was had:\n\n")
        .append("- Takeover: for leases up to ")
        .append(show(settings.realTakeoverUpTo()))
        .append(
            ", measured: a worker process claims a job, renews once, and is killed with SIGKILL")
        .append(" at a random moment of its next heartbeat interval; another worker polls claim")
        .append(" every ")
        .append(show(LeaseTuningTakeover.POLL))
        .append("; kill and reclaim are read on the database clock. Longer leases are derived,")
        .append(" not measured: mean = lease − heartbeat / 2 + the measured expiry-to-reclaim")
        .append(" delay (")
        .append(ms(overheadMean()))
        .append("), max = lease + its maximum (")
        .append(ms(overheadMax()))
        .append(").\n")
        .append("- False zombies (run): ")
        .append(settings.liveJobs())
        .append(" jobs at once on real PostgreSQL leases, each a thread that heartbeats, pauses")
        .append(" once for a drawn pause without heartbeating, then commits; a refused commit is a")
        .append(" false zombie. All durations are scaled so that the lease is at most ")
        .append(show(settings.scaledLeaseCap()))
        .append(" (factor in the cell); \"draws predict\" counts the drawn pauses that outlast")
        .append(" what remained of their lease. Worst unplanned stall per run (scaled time): ")
        .append(stalls())
        .append(". (model): the mean over the pause's start within a")
        .append(" heartbeat interval of P(pause > what remained of the lease); the rule uses the")
        .append(" model, since a few hundred jobs cannot resolve rates near 0.1 %.\n")
        .append(
            String.format(
                Locale.ROOT,
                "- Heartbeat cost: %d renews one after another on one connection: mean %.2f ms,"
                    + " p99 %.2f ms, %.0f statements/s. Renews/s per 1k jobs = 1000 / heartbeat;"
                    + " connections busy = that × mean time per renew.%n",
                cost.renews(),
                cost.meanMillis(),
                cost.p99Millis(),
                cost.perSecond()));
  }

  private String stalls() {
    return String.join(
        ", ", zombies.stream().map(z -> show(z.lease()) + ": " + show(z.worstStall())).toList());
  }

  private void killTable(StringBuilder md) {
    if (kills.isEmpty()) {
      return;
    }
    md.append(
        "\nKills (database clock):\n\n| lease | lease left at kill | takeover |\n|---:|---:|---:|\n");
    for (Kill k : kills) {
      md.append("| ")
          .append(show(k.lease()))
          .append(" | ")
          .append(show(k.remaining()))
          .append(" | ")
          .append(show(k.takeover()))
          .append(" |\n");
    }
  }

  private static Duration max(Duration a, Duration b) {
    return a.compareTo(b) >= 0 ? a : b;
  }

  private static String ms(double millis) {
    return show(Duration.ofNanos((long) (millis * 1e6)));
  }

  private static String round(double value) {
    return new BigDecimal(value, new MathContext(3)).stripTrailingZeros().toPlainString();
  }

  /** Shows a fraction as a percentage to two significant digits. */
  static String percent(double fraction) {
    double value = fraction * 100;
    if (value == 0) {
      return "0 %";
    }
    if (value < 1e-4) {
      return "< 0.0001 %";
    }
    return new BigDecimal(value, new MathContext(2)).stripTrailingZeros().toPlainString() + " %";
  }

  /**
   * Shows {@code d} as milliseconds below a second, else seconds: {@code 333 ms}, {@code 1.67 s}.
   */
  static String show(Duration d) {
    if (d == null) {
      return "null";
    }
    double ms = d.toNanos() / 1e6;
    if (Math.abs(ms) < 1000) {
      return trim(ms, Math.abs(ms) < 10 ? 2 : 0) + " ms";
    }
    return trim(ms / 1000, 2) + " s";
  }

  private static String trim(double value, int decimals) {
    return BigDecimal.valueOf(value)
        .setScale(decimals, RoundingMode.HALF_UP)
        .stripTrailingZeros()
        .toPlainString();
  }

  static double millis(Duration d) {
    return d.toNanos() / 1e6;
  }
}
