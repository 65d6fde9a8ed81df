package dev.fencing.ha;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.OptionalLong;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * The summary of a {@link FailoverFaultTest} run: a text table, and its section of
 * docs/RELIABILITY.md (from {@link #SECTION} to the end of the page; what comes before is
 * fencing-demo's {@code RuntimeFaultTest}'s, and each keeps the other's).
 */
final class FailoverReport {

  /** Where the section begins (fencing-demo's {@code ChaosReport} looks for the same line). */
  static final String SECTION = "<!-- failover: FailoverFaultTest (fencing-ha) -->";

  /** The command that runs the long form and writes its section of docs/RELIABILITY.md. */
  static final String LONG_FORM_COMMAND =
      "./mvnw -B -pl fencing-ha -am verify -Dtest=FailoverFaultTest"
          + " -Dsurefire.failIfNoSpecifiedTests=false"
          + " -Dfencing.failover.modes=async,sync -Dfencing.failover.kills=5"
          + " -Dfencing.failover.switchovers=5 -Dfencing.failover.variants=real,no-generation"
          + " -Dfencing.failover.workers=3 -Dfencing.failover.jobsPerFault=600"
          + " -Dfencing.failover.report=../docs/RELIABILITY.md";

  private FailoverReport() {}

  /** One row per variant and mode: what was injected, counted and measured. */
  static String table(List<FailoverFaultTest.ModeRun> runs) {
    List<String> names = new ArrayList<>();
    names.addAll(
        List.of(
            "jobs",
            "failovers (kill -9 of the leader / switchover)",
            "WAL the killed leader had not sent (bytes, min-max)",
            "jobs lost (completions told, then lost and run again)",
            "stale accepts",
            "tokens held by two owners (claimed twice)",
            "kill -9: leader writable again (ms, p50 / p99)",
            "kill -9: claims succeed again (ms, p50 / p99)",
            "switchover: claims succeed again (ms, p50 / p99)",
            "outcomes (Completed / FencedOff / Released / Abandoned / Failed)",
            "drain after the last failover / whole run (s)"));
    List<List<String>> columns = new ArrayList<>();
    for (FailoverFaultTest.ModeRun run : runs) {
      var counts = run.checks().counts();
      var kills = filter(run, f -> f.fault() == FailoverFaultTest.Fault.KILL);
      var switchovers = filter(run, f -> f.fault() == FailoverFaultTest.Fault.SWITCHOVER);
      columns.add(
          List.of(
              Integer.toString(run.jobs()),
              kills.size() + " / " + switchovers.size(),
              kills.isEmpty()
                  ? "-"
                  : kills.stream().mapToLong(FailoverFaultTest.Failover::lagBytes).min().orElse(0)
                      + "-"
                      + kills.stream()
                          .mapToLong(FailoverFaultTest.Failover::lagBytes)
                          .max()
                          .orElse(0),
              run.mode().equals("sync")
                  ? violations(run, FailoverChecks.NO_LOST_COMPLETION)
                  : counts.getOrDefault("completions lost and rerun", 0) + " (allowed)",
              violations(run, FailoverChecks.NO_STALE),
              counts.getOrDefault("tokens claimed twice", 0)
                  + " ("
                  + counts.getOrDefault("tokens claimed by two processes", 0)
                  + " by two processes)",
              percentiles(kills.stream().map(f -> OptionalLong.of(f.writableMillis())).toList()),
              percentiles(kills.stream().map(FailoverFaultTest.Failover::claimMillis).toList()),
              percentiles(
                  switchovers.stream().map(FailoverFaultTest.Failover::claimMillis).toList()),
              List.of("Completed", "FencedOff", "Released", "Abandoned", "Failed").stream()
                  .map(t -> Integer.toString(counts.getOrDefault("outcome " + t, 0)))
                  .collect(Collectors.joining(" / ")),
              String.format(
                  Locale.ROOT,
                  "%.1f / %.1f",
                  run.drain().toMillis() / 1000.0,
                  run.total().toMillis() / 1000.0)));
    }
    StringBuilder md = new StringBuilder("| | ");
    md.append(
            runs.stream()
                .map(r -> r.variant() + ", " + r.mode())
                .collect(Collectors.joining(" | ")))
        .append(" |\n|---|")
        .append("---|".repeat(runs.size()))
        .append('\n');
    for (int i = 0; i < names.size(); i++) {
      int row = i;
      md.append("| ")
          .append(names.get(i))
          .append(" | ")
          .append(columns.stream().map(c -> c.get(row)).collect(Collectors.joining(" | ")))
          .append(" |\n");
    }
    return md.toString();
  }

  /** Replaces the page's section from {@link #SECTION} on (or appends it) with this run's. */
  static void write(
      Path path,
      FailoverFaultTest.Settings settings,
      List<FailoverFaultTest.ModeRun> runs,
      PatroniCluster cluster)
      throws IOException {
    StringBuilder md = new StringBuilder(SECTION).append('\n');
    md.append("## Across a PostgreSQL failover\n\n")
        .append("Written by `FailoverFaultTest` (fencing-ha) on ")
        .append(Instant.now().truncatedTo(ChronoUnit.SECONDS))
        .append(". ")
        .append(settings.workers())
        .append(
            " worker JVMs per variant (two share an owner name) run `FencedWorkers` on a queue in a")
        .append(" two-node PostgreSQL under Patroni, through its multi-host URL")
        .append(" (`targetServerType=primary`) on the pool docs/HA.md advises (HikariCP with a 2 s")
        .append(" connection timeout on `PrimaryWaitingDataSource`), and deliver every result to a")
        .append(" receiver in another")
        .append(" database that no failover touches. Lease ")
        .append(settings.lease().toMillis())
        .append(" ms, concurrency ")
        .append(settings.concurrency())
        .append(", batch 10; handlers run 20-300 ms. For each failover the test enqueues ")
        .append(settings.jobsPerFault())
        .append(" jobs, waits until the replica has them, lets the workers run for 1-2.5 s, then")
        .append(" either kills the leader (`SIGKILL` of its Patroni and postmaster) after stopping")
        .append(" its WAL sender for ")
        .append(settings.lag().toMillis())
        .append(" ms (`SIGSTOP`: what the leader commits meanwhile never reaches the replica), or")
        .append(" asks Patroni for a switchover. Patroni's `maximum_lag_on_failover` is raised to")
        .append(" 256 MiB so that it promotes the lagging replica.\n\n")
        .append("- **async**: Patroni's asynchronous replication, the library's default mode.")
        .append(" The kill loses the old primary's last claims and commits.\n")
        .append("- **sync**: Patroni's `synchronous_mode` and the library's")
        .append(" `synchronousReplication(true)`. Commits wait for the replica, so none that was")
        .append(" acknowledged is lost.\n")
        .append("- **no-generation**: the workers' claims compute generation 0 on every timeline")
        .append(" (their connections resolve `pg_walfile_name` to a function that names timeline")
        .append(" 1). This is the broken variant that shows the checks can fail.\n\n")
        .append("Counted per job and per token (a job and one of its epochs), from every claim and")
        .append(" outcome the workers printed, the job table on the new primary and the receiver's")
        .append(" table. \"Writable\" is the time from the fault until the promoted node took its")
        .append(" first write (a session on it, polled every 10 ms); \"claims succeed again\" the")
        .append(" time from the fault until a worker's handler starts on a claim of the new")
        .append(" primary's generation. Percentiles are")
        .append(" nearest-rank: with five samples, p99 is the largest.\n\n")
        .append("Reproduce:\n\n```bash\n")
        .append(LONG_FORM_COMMAND)
        .append("\n```\n\nThe short form (CI) is the same test without the")
        .append(" `fencing.failover.*` properties: one kill in asynchronous mode, two workers and")
        .append(" 400 jobs per variant.\n\n")
        .append("| | |\n|---|---|\n| PostgreSQL (the cluster) | ")
        .append(cluster.query(cluster.leader(), "select version()"))
        .append(" |\n| cores (nproc) | ")
        .append(Runtime.getRuntime().availableProcessors())
        .append(" |\n| seed | ")
        .append(settings.seed())
        .append(" |\n\n")
        .append(table(runs))
        .append("\n### Every failover\n\n")
        .append("Every variant of a mode went through the same failovers.\n\n")
        .append("| mode | fault | WAL not sent (bytes) | writable (ms) | claims (ms) |")
        .append(" timeline after |\n|---|---|---:|---:|---:|---:|\n");
    for (String mode : runs.stream().map(FailoverFaultTest.ModeRun::mode).distinct().toList()) {
      FailoverFaultTest.ModeRun run =
          runs.stream().filter(r -> r.mode().equals(mode)).findFirst().orElseThrow();
      for (FailoverFaultTest.Failover f : run.failovers()) {
        md.append("| ")
            .append(run.mode())
            .append(" | ")
            .append(f.fault() == FailoverFaultTest.Fault.KILL ? "kill -9" : "switchover")
            .append(" | ")
            .append(f.fault() == FailoverFaultTest.Fault.KILL ? f.lagBytes() : "-")
            .append(" | ")
            .append(f.writableMillis())
            .append(" | ")
            .append(f.claimMillis().isPresent() ? f.claimMillis().getAsLong() : "-")
            .append(" | ")
            .append(f.timeline())
            .append(" |\n");
      }
    }
    for (FailoverFaultTest.ModeRun run : runs) {
      md.append("\n### Checks: ")
          .append(run.variant())
          .append(", ")
          .append(run.mode())
          .append("\n\n```\n")
          .append(run.checks().summary())
          .append("```\n");
    }
    String page = Files.exists(path) ? Files.readString(path) : "";
    int at = page.indexOf(SECTION);
    String before = at >= 0 ? page.substring(0, at) : page.isEmpty() ? "" : page + "\n";
    Files.writeString(path, before + md);
  }

  private static List<FailoverFaultTest.Failover> filter(
      FailoverFaultTest.ModeRun run, Predicate<FailoverFaultTest.Failover> which) {
    return run.failovers().stream().filter(which).toList();
  }

  private static String violations(FailoverFaultTest.ModeRun run, String check) {
    return Integer.toString(run.checks().violations().get(check).size());
  }

  /** Nearest-rank p50 and p99 of the samples present, or {@code -}. */
  private static String percentiles(List<OptionalLong> samples) {
    long[] sorted =
        samples.stream()
            .filter(OptionalLong::isPresent)
            .mapToLong(OptionalLong::getAsLong)
            .sorted()
            .toArray();
    if (sorted.length == 0) {
      return "-";
    }
    return rank(sorted, 0.50) + " / " + rank(sorted, 0.99);
  }

  private static long rank(long[] sorted, double p) {
    return sorted[Math.max(0, (int) Math.ceil(p * sorted.length) - 1)];
  }
}
