package dev.fencing.benchmarks;

import java.util.List;
import java.util.Locale;

/**
 * The Markdown section of {@link EngineBenchmark} run with {@code --baseline}: this build's two
 * engines against today's engine (the update-in-place engine of an earlier build) in the shape of
 * hardbyte/postgresql-job-queue-benchmarking, with the CPU each run spent per job.
 */
final class HarnessReport {

  static final String TITLE = "## The harness's shape against today's engine (issue 33)";

  private static final int TODAY = 0;

  /** This build's update-in-place engine. */
  private static final int UPDATE = 1;

  /** This build's default engine, the append-only one. */
  private static final int DEFAULT = 2;

  private HarnessReport() {}

  /**
   * Returns the section: each row of {@code depthRows} holds (today, update, append) for the worker
   * count of {@code workers} at the same index; {@code rateRow} likewise, or null.
   */
  static String section(
      EngineReport.Settings s,
      List<Integer> workers,
      List<EngineResult[]> depthRows,
      EngineResult[] rateRow) {
    StringBuilder md = new StringBuilder(TITLE).append("\n\n");
    md.append(EngineReport.measured(s));
    md.append(
        "```\n"
            + "git worktree add /tmp/today 93a0993   # main when issue 33 was filed\n"
            + "(cd /tmp/today && ./mvnw -q -pl benchmarks -am package -DskipTests \\\n"
            + "  && cp benchmarks/target/benchmarks.jar /tmp/today-benchmarks.jar)\n"
            + "git worktree remove --force /tmp/today\n"
            + "./mvnw -q -pl benchmarks -am package -DskipTests\n"
            + "FENCING_JDBC_URL='jdbc:postgresql://localhost:5432/postgres"
            + "?user=postgres&password=postgres' \\\n"
            + "  java -cp benchmarks/target/benchmarks.jar dev.fencing.benchmarks.EngineBenchmark");
    md.append(s.arguments().isEmpty() ? "" : " " + s.arguments()).append("\n```\n\n");
    md.append(
        String.format(
            Locale.ROOT,
            "As [Queue engines side by side](#queue-engines-side-by-side-issue-22) runs them (each"
                + " run a fresh JVM on a fresh schema, `FencedWorkers` with batch 100, prefetch"
                + " 400, a pool of 10, 1 ms handlers, a producer keeping %,d jobs not yet claimed in"
                + " plain batches of at most 128, a warm-up of %d s left out, the median of the"
                + " clean phase's %d s windows over %d s), three engines at each point, the order"
                + " turning from point to point: **today's** is the update-in-place engine as"
                + " `--baseline`'s earlier jar runs it (its runtime and its statements), **update in"
                + " place** and **default** (append-only) this build's. CPU per job is over the whole run (warm-up"
                + " included) and all of it: the run's JVM (runtime, handlers and producer) from"
                + " `/proc/<pid>/stat`, and the database's client backends likewise, read every"
                + " %d ms; the server's background processes are left out.%n%n",
            s.depth(),
            s.warmup(),
            s.window(),
            s.seconds(),
            RunCpu.POLL_MILLIS));
    if (!depthRows.isEmpty()) {
      depthTable(md, workers, depthRows);
    }
    if (rateRow != null) {
      rateTable(md, s, rateRow);
    }
    EngineReport.outcomes(md, s, workers, depthRows, rateRow);
    return md.toString();
  }

  private static void depthTable(
      StringBuilder md, List<Integer> workers, List<EngineResult[]> rows) {
    md.append("### Full load: jobs/s by workers (clean-phase median)\n\n");
    md.append(
        "| workers | today: jobs/s | default: jobs/s | default / today | update in place: jobs/s |"
            + " CPU µs per job, PostgreSQL + JVM: today | default | update in place |"
            + " claim p50 / p99 (ms): today | default |\n");
    md.append("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    StringBuilder figures = new StringBuilder();
    for (int i = 0; i < rows.size(); i++) {
      EngineResult[] r = rows.get(i);
      double ratio = r[DEFAULT].jobsPerSecond() / r[TODAY].jobsPerSecond();
      md.append(
          String.format(
              Locale.ROOT,
              "| %d | %,.0f | %,.0f | %.2f | %,.0f | %s | %s | %s | %s / %s | %s / %s |%n",
              workers.get(i),
              r[TODAY].jobsPerSecond(),
              r[DEFAULT].jobsPerSecond(),
              ratio,
              r[UPDATE].jobsPerSecond(),
              cpu(r[TODAY]),
              cpu(r[DEFAULT]),
              cpu(r[UPDATE]),
              r[TODAY].claimP50(),
              r[TODAY].claimP99(),
              r[DEFAULT].claimP50(),
              r[DEFAULT].claimP99()));
      if (workers.get(i) == 64 || workers.get(i) == 128) {
        figures.append(
            String.format(
                Locale.ROOT, "%n%d workers / today's engine: %.2f%n", workers.get(i), ratio));
      }
    }
    md.append(figures).append('\n');
  }

  private static String cpu(EngineResult r) {
    double pg = r.pgMicrosPerJob();
    double jvm = r.jvmMicrosPerJob();
    if (pg < 0 || jvm < 0) {
      return "n/a";
    }
    return String.format(Locale.ROOT, "%.0f + %.0f = %.0f", pg, jvm, pg + jvm);
  }

  private static void rateTable(StringBuilder md, EngineReport.Settings s, EngineResult[] r) {
    md.append(
        String.format(
            Locale.ROOT,
            "### %,d jobs/s offered from a cold start (32 workers)%n%n"
                + "Fresh schema, fresh JVM, the producer starting with the runtime; every %d s"
                + " window from the first is measured (no warm-up), %d s in all.%n%n",
            s.rate(),
            s.window(),
            s.rateSeconds()));
    md.append(
        "| engine | completed/s (median window) | claim p50 (ms), whole run |"
            + " claim p99 (ms), whole run | claim p99 (ms), worst window | first three windows'"
            + " p99 (ms) | CPU µs per job, PostgreSQL + JVM |\n");
    md.append("|---|---:|---:|---:|---:|---:|---:|\n");
    String[] names = {"today", "update in place", "default (append-only)"};
    for (int e = 0; e < r.length; e++) {
      double worst = 0;
      StringBuilder first = new StringBuilder();
      List<String[]> windows = r[e].windows();
      for (int w = 0; w < windows.size(); w++) {
        double p99 = number(windows.get(w)[5]);
        worst = Math.max(worst, p99);
        if (w < 3) {
          first.append(first.isEmpty() ? "" : ", ").append(windows.get(w)[5]);
        }
      }
      md.append(
          String.format(
              Locale.ROOT,
              "| %s | %s | %s | **%s** | %.1f | %s | %s |%n",
              names[e],
              r[e].summary()[2],
              r[e].claimP50(),
              r[e].claimP99(),
              worst,
              first,
              cpu(r[e])));
    }
    md.append(
        String.format(
            Locale.ROOT,
            "%nThe fixed-rate bar, claim p99 under 50 ms over the whole run from a cold start, on the"
                + " default engine: %s ms (%s).%n%n",
            r[DEFAULT].claimP99(),
            number(r[DEFAULT].claimP99()) < 50 ? "met" : "**not met**"));
  }

  private static double number(String cell) {
    try {
      return Double.parseDouble(cell.replace(",", ""));
    } catch (NumberFormatException e) {
      return Double.NaN;
    }
  }
}
