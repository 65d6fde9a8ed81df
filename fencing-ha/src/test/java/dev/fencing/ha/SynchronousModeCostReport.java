package dev.fencing.ha;

import dev.fencing.ha.SynchronousModeCost.Check;
import dev.fencing.ha.SynchronousModeCost.Measurement;
import dev.fencing.ha.SynchronousModeCost.Mode;
import dev.fencing.ha.SynchronousModeCost.Settings;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;
import java.util.stream.Collectors;

/**
 * The section of docs/BENCHMARKS.md that {@link SynchronousModeCostTest} writes: how it was run, on
 * what, a table per thread count with the median of the rounds and their spread, the ratio sync /
 * async, and every round.
 */
final class SynchronousModeCostReport {

  /** The section's title; the section runs to the next {@code ## } title or the end. */
  static final String TITLE = "## Synchronous replication: what it costs";

  /** The command that runs the test, without its {@code fencing.synccost.*} options. */
  static final String COMMAND =
      "./mvnw -B -pl fencing-ha -am verify -Dtest=SynchronousModeCostTest"
          + " -Dsurefire.failIfNoSpecifiedTests=false -Djacoco.skip=true";

  private SynchronousModeCostReport() {}

  /** One measured quantity: its name, how to read it from a measurement, its format. */
  private record Quantity(String name, ToDoubleFunction<Measurement> value, String format) {}

  private static final List<Quantity> QUANTITIES =
      List.of(
          new Quantity("enqueues/s", Measurement::enqueuesPerSecond, "%,.0f"),
          new Quantity("claim+complete cycles/s", Measurement::cyclesPerSecond, "%,.0f"),
          new Quantity("claim p50 (ms)", m -> m.claimMillis(0.50), "%.2f"),
          new Quantity("claim p99 (ms)", m -> m.claimMillis(0.99), "%.2f"),
          new Quantity("complete p50 (ms)", m -> m.completeMillis(0.50), "%.2f"),
          new Quantity("complete p99 (ms)", m -> m.completeMillis(0.99), "%.2f"));

  /** The section, from {@link #TITLE} to its last line (ending with a line break). */
  static String section(
      Settings settings,
      List<Measurement> measurements,
      List<Check> checks,
      String postgresVersion,
      String loadBefore,
      String loadAfter) {
    List<Measurement> measured = measurements.stream().filter(m -> m.round() > 0).toList();
    StringBuilder md = new StringBuilder(TITLE).append("\n\n");
    md.append("Measured ")
        .append(Instant.now().truncatedTo(ChronoUnit.SECONDS))
        .append(" by `SynchronousModeCostTest` (fencing-ha) on a two-node PostgreSQL under")
        .append(" Patroni (the test fixture `PatroniCluster`), through its multi-host URL and a")
        .append(" HikariCP pool, in one run:\n\n")
        .append("- **async**: Patroni's asynchronous replication, the library's default mode.\n")
        .append("- **sync**: Patroni's `synchronous_mode` with the replica as synchronous")
        .append(" standby, and `PostgresFencing.builder(ds).synchronousReplication(true)`: every")
        .append(" call is one transaction that forces `synchronous_commit` on and writes an empty")
        .append(" WAL message, and its commit waits until the standby has flushed the WAL.\n\n")
        .append("Per mode and thread count, ")
        .append(String.format(Locale.ROOT, "%,d", settings.cycles()))
        .append(" single `enqueue` calls (one job each; notifications on, the default), then as")
        .append(" many cycles of `claim` (one job, lease 5 min) and `complete`, the threads taking")
        .append(" the next job until all are done; rates are calls over the time from the start")
        .append(" of all threads to the end of the last. Each round runs every thread count in")
        .append(" async mode, then in sync mode (so the modes interleave), each mode on a fresh")
        .append(" schema; an unmeasured round of ")
        .append(String.format(Locale.ROOT, "%,d", settings.warmup()))
        .append(" cycles runs first. Figures are the median over ")
        .append(settings.rounds() == 1 ? "the one round" : "the " + settings.rounds() + " rounds")
        .append(", with the smallest and largest in brackets; latencies are nearest-rank")
        .append(" percentiles of one round's calls. sync / async divides the medians: below 1 for")
        .append(" a rate is fewer calls per second, above 1 for a latency is slower. Both nodes")
        .append(" run on this machine and talk over loopback, so the wait for the standby holds")
        .append(" its work (receive, write, flush, reply) but no network: across machines add")
        .append(" about one round trip per call.\n\n")
        .append("Reproduce:\n\n```bash\n")
        .append(COMMAND)
        .append(" \\\n  ")
        .append(settings.options())
        .append(" \\\n  -D")
        .append(Settings.PREFIX)
        .append("report=../docs/BENCHMARKS.md\n```\n\n")
        .append("Without the `fencing.synccost.*` options it is the CI form: ")
        .append("100 cycles per mode, one thread, one round, no timing asserted.\n\n")
        .append("| | |\n|---|---|\n| cores (nproc) | ")
        .append(Runtime.getRuntime().availableProcessors())
        .append(" |\n| Java | ")
        .append(Runtime.version())
        .append(" |\n| PostgreSQL (the cluster) | ")
        .append(postgresVersion)
        .append(" |\n| settings of the nodes | the fixture's: `fsync` ")
        .append(settings.fsync() ? "on (for this run)" : "off")
        .append(", `shared_buffers` 16MB, `synchronous_commit` on |\n")
        .append("| load average (1, 5, 15 min) | before: ")
        .append(loadBefore)
        .append("; after: ")
        .append(loadAfter)
        .append(" |\n\n");
    md.append("| threads | measure | async | sync | sync / async |\n")
        .append("|---:|---|---:|---:|---:|\n");
    for (int threads : settings.threads()) {
      List<Measurement> async = of(measured, Mode.ASYNC, threads);
      List<Measurement> sync = of(measured, Mode.SYNC, threads);
      for (Quantity q : QUANTITIES) {
        double a = median(async, q.value());
        double s = median(sync, q.value());
        md.append("| ")
            .append(threads)
            .append(" | ")
            .append(q.name())
            .append(" | ")
            .append(spread(async, q))
            .append(" | ")
            .append(spread(sync, q))
            .append(" | ")
            .append(String.format(Locale.ROOT, "%.2f", s / a))
            .append(" |\n");
      }
    }
    md.append('\n');
    for (int threads : settings.threads()) {
      md.append("- ").append(summary(measured, threads)).append('\n');
    }
    md.append("\nA synchronous standby was attached before and after every sync round (")
        .append(
            checks.stream()
                .filter(c -> c.mode() == Mode.SYNC)
                .map(
                    c ->
                        (c.round() == 0 ? "warm-up" : "round " + c.round())
                            + ": "
                            + c.standby()
                            + ", "
                            + c.after().standby())
                .collect(Collectors.joining("; ")))
        .append("). Claims that found no job: ")
        .append(measured.stream().mapToInt(Measurement::emptyClaims).sum())
        .append(".\n\n### sync / async in each round\n\n")
        .append("The same ratios within each round, whose two modes ran a minute apart at most:")
        .append(" a drift of the machine moves both.\n\n")
        .append("| round | threads | enqueues/s | cycles/s | claim p50 | complete p50 |\n")
        .append("|---:|---:|---:|---:|---:|---:|\n");
    for (Measurement a : measured) {
      if (a.mode() != Mode.ASYNC) {
        continue;
      }
      Measurement s =
          measured.stream()
              .filter(
                  m ->
                      m.mode() == Mode.SYNC && m.round() == a.round() && m.threads() == a.threads())
              .findFirst()
              .orElseThrow();
      md.append(
          String.format(
              Locale.ROOT,
              "| %d | %d | %.2f | %.2f | %.2f | %.2f |\n",
              a.round(),
              a.threads(),
              s.enqueuesPerSecond() / a.enqueuesPerSecond(),
              s.cyclesPerSecond() / a.cyclesPerSecond(),
              s.claimMillis(0.5) / a.claimMillis(0.5),
              s.completeMillis(0.5) / a.completeMillis(0.5)));
    }
    md.append("\n### Every round\n\n")
        .append("| round | mode | threads | enqueues/s | cycles/s | claim p50 | claim p99 |")
        .append(" complete p50 | complete p99 |\n")
        .append("|---:|---|---:|---:|---:|---:|---:|---:|---:|\n");
    for (Measurement m : measured) {
      md.append("| ")
          .append(m.round())
          .append(" | ")
          .append(m.mode().label())
          .append(" | ")
          .append(m.threads());
      for (Quantity q : QUANTITIES) {
        md.append(" | ").append(String.format(Locale.ROOT, q.format(), q.value().applyAsDouble(m)));
      }
      md.append(" |\n");
    }
    return md.toString();
  }

  /**
   * One line on the cost at {@code threads} threads: how many times fewer claim+complete cycles and
   * enqueues per second sync mode ran.
   */
  static String summary(List<Measurement> measured, int threads) {
    List<Measurement> async = of(measured, Mode.ASYNC, threads);
    List<Measurement> sync = of(measured, Mode.SYNC, threads);
    return String.format(
        Locale.ROOT,
        "%d thread%s: claim+complete %.1f times slower in sync mode, enqueue %.1f times slower"
            + " (claim p50 %.2f → %.2f ms, complete p50 %.2f → %.2f ms)",
        threads,
        threads == 1 ? "" : "s",
        median(async, Measurement::cyclesPerSecond) / median(sync, Measurement::cyclesPerSecond),
        median(async, Measurement::enqueuesPerSecond)
            / median(sync, Measurement::enqueuesPerSecond),
        median(async, m -> m.claimMillis(0.5)),
        median(sync, m -> m.claimMillis(0.5)),
        median(async, m -> m.completeMillis(0.5)),
        median(sync, m -> m.completeMillis(0.5)));
  }

  /**
   * Returns {@code page} with its section {@link #TITLE} (up to the next {@code ## } title)
   * replaced by {@code section}, or with {@code section} appended after a blank line if it has
   * none. Everything else of the page stays as it was, byte for byte.
   */
  static String replaceSection(String page, String section) {
    String body = section.endsWith("\n") ? section : section + "\n";
    int start = page.startsWith(TITLE + "\n") ? 0 : page.indexOf("\n" + TITLE + "\n");
    if (start < 0) {
      if (page.isEmpty()) {
        return body;
      }
      return page + (page.endsWith("\n") ? "\n" : "\n\n") + body;
    }
    if (start > 0) {
      start++; // past the line break before the title
    }
    int next = page.indexOf("\n## ", start);
    if (next < 0) {
      return page.substring(0, start) + body;
    }
    return page.substring(0, start) + body + "\n" + page.substring(next + 1);
  }

  private static List<Measurement> of(List<Measurement> measured, Mode mode, int threads) {
    return measured.stream().filter(m -> m.mode() == mode && m.threads() == threads).toList();
  }

  private static double median(List<Measurement> rounds, ToDoubleFunction<Measurement> value) {
    double[] sorted = rounds.stream().mapToDouble(value).sorted().toArray();
    int n = sorted.length;
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  }

  /** The median, and with more than one round the smallest and largest value in brackets. */
  private static String spread(List<Measurement> rounds, Quantity q) {
    String median = String.format(Locale.ROOT, q.format(), median(rounds, q.value()));
    if (rounds.size() < 2) {
      return median;
    }
    double[] values = rounds.stream().mapToDouble(q.value()).toArray();
    return median
        + String.format(
            Locale.ROOT,
            " (" + q.format() + "-" + q.format() + ")",
            Arrays.stream(values).min().orElseThrow(),
            Arrays.stream(values).max().orElseThrow());
  }
}
