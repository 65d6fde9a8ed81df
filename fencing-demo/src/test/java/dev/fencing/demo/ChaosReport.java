package dev.fencing.demo;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The summary of a {@link RuntimeFaultTest} run: a text table, and the RELIABILITY.md page. */
final class ChaosReport {

  /** The command that runs the long form and writes docs/RELIABILITY.md. */
  static final String LONG_FORM_COMMAND =
      "./mvnw -B -pl fencing-demo -am verify -Dtest=RuntimeFaultTest"
          + " -Dsurefire.failIfNoSpecifiedTests=false"
          + " -Dfencing.chaos.jobs=20000 -Dfencing.chaos.faults=50"
          + " -Dfencing.chaos.report=../docs/RELIABILITY.md";

  /** Where the page's failover section begins; {@link #write} keeps it. */
  static final String FAILOVER_SECTION = "<!-- failover: FailoverFaultTest (fencing-ha) -->";

  /** What happened in one run. */
  record Run(
      RuntimeFaultTest.Settings settings,
      Map<RuntimeFaultTest.Fault, Integer> injected,
      String skipped,
      int backendsTerminated,
      int workerIncarnations,
      ChaosChecks checks,
      Duration chaos,
      Duration drain,
      Duration stop,
      Duration total,
      String postgresVersion) {}

  private ChaosReport() {}

  /** Returns the summary as aligned rows of two columns. */
  static String table(Run run) {
    List<String[]> rows = new ArrayList<>();
    RuntimeFaultTest.Settings s = run.settings();
    rows.add(row("jobs", s.jobs()));
    rows.add(
        row(
            "workers",
            s.workers()
                + " processes, owners "
                + String.join("/", RuntimeFaultTest.OWNERS)
                + ", "
                + run.workerIncarnations()
                + " incarnations"));
    rows.add(
        row(
            "runtime",
            "lease "
                + s.lease().toMillis()
                + " ms, concurrency "
                + s.concurrency()
                + ", batch "
                + s.batchSize()
                + ", max attempts "
                + s.maxAttempts()
                + ", backend "
                + s.variant()));
    for (RuntimeFaultTest.Fault f : RuntimeFaultTest.Fault.values()) {
      String value = run.injected().getOrDefault(f, 0) + " of " + s.faultsPerKind();
      if (f == RuntimeFaultTest.Fault.TERMINATE_BACKENDS) {
        value += " (" + run.backendsTerminated() + " backends)";
      }
      if (f == RuntimeFaultTest.Fault.RESTART_POSTGRES && !run.skipped().isEmpty()) {
        value += " (skipped: " + run.skipped() + ")";
      }
      rows.add(row("fault " + f.label(), value));
    }
    ChaosChecks c = run.checks();
    for (String type : List.of("Completed", "FencedOff", "Failed", "Released", "Abandoned")) {
      rows.add(row("outcome " + type, c.count(type, 0)));
    }
    for (String stage : List.of("HEARTBEAT", "DELIVER", "COMMIT", "FAIL")) {
      rows.add(row("fenced off at " + stage, c.count("FencedOff@" + stage, 0)));
    }
    for (String refusal : List.of("Superseded", "LeaseExpired", "NotOwner", "AlreadyFinished")) {
      rows.add(row("refusal " + refusal, c.count("refusal:" + refusal, 0)));
    }
    rows.add(row("max epoch", c.count("max epoch", 0)));
    rows.add(row("jobs claimed more than once", c.count("jobs claimed more than once", 0)));
    rows.add(
        row(
            "jobs claimed twice under one owner",
            c.count("jobs claimed twice under one owner", 0)));
    rows.add(
        row(
            "completions logged",
            c.count("logged completions", 0)
                + " of "
                + s.jobs()
                + " (a worker killed between its commit and its log line leaves one unlogged;"
                + " the table shows every job completed)"));
    rows.add(
        row(
            "duration",
            seconds(run.total())
                + " (chaos "
                + seconds(run.chaos())
                + ", drain "
                + seconds(run.drain())
                + ", stop "
                + seconds(run.stop())
                + ")"));
    int width = rows.stream().mapToInt(r -> r[0].length()).max().orElse(0);
    StringBuilder out = new StringBuilder();
    for (String[] r : rows) {
      out.append("| ")
          .append(r[0])
          .append(" ".repeat(width - r[0].length()))
          .append(" | ")
          .append(r[1])
          .append(" |\n");
    }
    return out.toString();
  }

  /** Writes the RELIABILITY.md page for {@code run} to {@code path}. */
  static void write(Path path, Run run) throws IOException {
    boolean passed = run.checks().violations().values().stream().allMatch(List::isEmpty);
    StringBuilder md = new StringBuilder();
    md.append("# Reliability: the worker runtime under faults\n\n")
        .append("Written by `RuntimeFaultTest` (fencing-demo) on ")
        .append(Instant.now().truncatedTo(ChronoUnit.SECONDS))
        .append(". Worker JVMs run `FencedWorkers` on one PostgreSQL queue with a PostgreSQL")
        .append(" receiver while the test kills them (`SIGKILL`, then restarts them under the same")
        .append(" owner), freezes them (`SIGSTOP` for longer than the lease, then `SIGCONT`),")
        .append(" terminates their backends (`pg_terminate_backend`) and restarts PostgreSQL")
        .append(" (`pg_ctl stop -m fast`, then start on the same data directory and port).")
        .append(" Two worker processes share each owner name. Handlers run 20-200 ms, about one")
        .append(" lease, or three leases; 5 % ignore cancellation and return a result anyway.\n\n")
        .append("Reproduce (it takes about the duration below, on the machine below):\n\n```bash\n")
        .append(LONG_FORM_COMMAND)
        .append("\n```\n\n")
        .append(
            "The short form (CI) is the same test without the `fencing.chaos.*` properties.\n\n")
        .append("## Machine\n\n")
        .append("| | |\n|---|---|\n")
        .append("| cores (nproc) | ")
        .append(Runtime.getRuntime().availableProcessors())
        .append(" |\n| memory | ")
        .append(memory())
        .append(" |\n| Java | ")
        .append(System.getProperty("java.vendor"))
        .append(' ')
        .append(System.getProperty("java.runtime.version"))
        .append(" |\n| PostgreSQL | ")
        .append(run.postgresVersion())
        .append(" |\n| OS | ")
        .append(System.getProperty("os.name"))
        .append(' ')
        .append(System.getProperty("os.version"))
        .append(" |\n\n## Figures\n\n| what | value |\n|---|---|\n")
        .append(table(run))
        .append("\n## Checks: ")
        .append(passed ? "all passed" : "SOME FAILED")
        .append("\n\n```\n")
        .append(run.checks().summary())
        .append("```\n");
    Files.createDirectories(path.toAbsolutePath().getParent());
    // the page's failover section is fencing-ha's FailoverFaultTest's: kept as it is
    if (Files.exists(path)) {
      String page = Files.readString(path);
      int failover = page.indexOf(FAILOVER_SECTION);
      if (failover >= 0) {
        md.append('\n').append(page.substring(failover));
      }
    }
    Files.writeString(path, md.toString());
  }

  private static String[] row(String name, Object value) {
    return new String[] {name, String.valueOf(value)};
  }

  private static String seconds(Duration d) {
    return String.format(Locale.ROOT, "%.1f s", d.toMillis() / 1000.0);
  }

  private static String memory() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
        if (line.startsWith("MemTotal:")) {
          long kib = Long.parseLong(line.replaceAll("\\D", ""));
          return String.format(Locale.ROOT, "%.1f GiB", kib / 1024.0 / 1024.0);
        }
      }
    } catch (IOException | RuntimeException e) {
      // fall through
    }
    return "unknown";
  }
}
