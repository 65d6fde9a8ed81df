package dev.fencing.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Short runs of {@link RetentionBenchmark}, on each engine, to prove it runs and reports every row
 * with numbers that make sense. Nothing here asserts a time: only that latencies and throughputs
 * are above zero.
 */
class RetentionBenchmarkSmokeTest {

  /** A data row: table, variant, long transaction, queue, then p50, p99, jobs/s, ratio, rows. */
  private static final Pattern ROW =
      Pattern.compile(
          "\\| (fresh|fresh, at the end|after [0-9,]+) \\|"
              + " (-|maintenance|maintenance, no VACUUM|autovacuum only|autovacuum only, default"
              + " storage) \\| (yes|no) \\| (backlog|drained) \\|"
              + " ([0-9.]+) \\| ([0-9.]+) \\| ([0-9,]+) \\| ([0-9.]+)x \\| ([0-9,]+) \\|.*");

  /** The smoke form's table size: small, the report's rows and what they show are the same. */
  private static final String SIZE = "2000";

  @Test
  void theQuickFormRunsAndReportsEveryRow() throws Exception {
    String report = run("RETENTION-smoke.md", "--quick", "--sizes", SIZE);
    assertThat(report)
        .startsWith(RetentionBenchmark.TITLE)
        .contains("| fresh | - | no |")
        .contains("| fresh | - | yes |")
        .contains("| after 2,000 | maintenance | no |")
        .contains("| after 2,000 | maintenance | yes |")
        .contains("| after 2,000 | autovacuum only | no |")
        .contains("| after 2,000 | autovacuum only | yes |")
        .contains("| after 2,000 | autovacuum only, default storage | no |")
        .contains("| after 2,000 | autovacuum only, default storage | yes |")
        .contains("| fresh, at the end | - | no |");
    List<Matcher> rows = rows(report, 13);
    // nothing removes jobs without maintenance: its table keeps every processed job
    assertThat(liveRows(rows, "after 2,000", "autovacuum only")).isGreaterThanOrEqualTo(2_000);
    // maintenance removed the backdated nine tenths before the windows (it caught up first)
    assertThat(removedByMaintenance(rows, "maintenance")).isGreaterThanOrEqualTo(1_600);
  }

  @Test
  void theAppendOnlyFormRunsAndReportsEveryRowAndEveryTable() throws Exception {
    String report =
        run("RETENTION-append-smoke.md", "--quick", "--engine", "append", "--sizes", SIZE);
    assertThat(report)
        .startsWith("## Append-only engine: claim cost as the tables age (issue 22)")
        .contains("| fresh | - | no |")
        .contains("| after 2,000 | maintenance | yes |")
        .contains("| after 2,000 | maintenance, no VACUUM | no |")
        .contains("| after 2,000 | autovacuum only | yes |")
        .contains("| fresh, at the end | - | no |")
        .contains("| after 2,000 | maintenance, no VACUUM | no | drained |")
        .contains("| job | window | claim | handout | done | requeue |");
    List<Matcher> rows = rows(report, 13);
    assertThat(liveRows(rows, "after 2,000", "autovacuum only")).isGreaterThanOrEqualTo(2_000);
    assertThat(removedByMaintenance(rows, "maintenance")).isGreaterThanOrEqualTo(1_600);
    assertThat(removedByMaintenance(rows, "maintenance, no VACUUM")).isGreaterThanOrEqualTo(1_600);
  }

  /**
   * Runs the benchmark with {@code args}, writing to {@code file} under target/bench, and returns
   * its report, checked for what every report has.
   */
  private static String run(String file, String... args) throws Exception {
    Path out = Path.of("target", "bench", file);
    Files.deleteIfExists(out);
    List<String> all = new java.util.ArrayList<>(List.of(args));
    all.addAll(List.of("--out", out.toString()));
    RetentionBenchmark.main(all.toArray(String[]::new));
    String report = Files.readString(out);
    assertThat(report)
        .contains("Machine: ")
        .contains("PostgreSQL")
        .contains("maintenance caught up")
        .doesNotContain("NaN")
        .doesNotContain("had NOT caught up");
    return report;
  }

  /** The report's data rows, {@code count} of them, each with numbers that make sense. */
  private static List<Matcher> rows(String report, int count) {
    List<Matcher> rows = report.lines().map(ROW::matcher).filter(Matcher::matches).toList();
    assertThat(rows).hasSize(count);
    for (Matcher row : rows) {
      String line = row.group();
      assertThat(Double.parseDouble(row.group(5))).as("p50 in %s", line).isPositive();
      assertThat(Double.parseDouble(row.group(6)))
          .as("p99 in %s", line)
          .isGreaterThanOrEqualTo(Double.parseDouble(row.group(5)));
      assertThat(number(row.group(7))).as("jobs/s in %s", line).isPositive();
      assertThat(number(row.group(9))).as("live rows in %s", line).isPositive();
    }
    return rows;
  }

  /**
   * How many fewer live rows {@code variant}'s table has than the one no maintenance ran on, after
   * the same 2,000 processed jobs (both also hold the benchmark's pending backlog).
   */
  private static long removedByMaintenance(List<Matcher> rows, String variant) {
    return liveRows(rows, "after 2,000", "autovacuum only")
        - liveRows(rows, "after 2,000", variant);
  }

  private static long liveRows(List<Matcher> rows, String table, String variant) {
    return rows.stream()
        .filter(m -> m.group(1).equals(table) && m.group(2).equals(variant))
        .mapToLong(m -> number(m.group(9)))
        .min()
        .orElseThrow();
  }

  private static long number(String text) {
    return Long.parseLong(text.replace(",", "").toLowerCase(Locale.ROOT));
  }
}
