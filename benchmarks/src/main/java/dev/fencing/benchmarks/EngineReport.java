package dev.fencing.benchmarks;

import java.time.LocalDate;
import java.util.List;
import java.util.Locale;

/** The Markdown section of {@link EngineBenchmark}: settings, the depth rows, the rate windows. */
final class EngineReport {

  static final String TITLE = "## Queue engines side by side (issue 22)";

  private EngineReport() {}

  /** What the run was asked, where it ran, and how long it took. */
  record Settings(
      String arguments,
      LocalDate date,
      String machine,
      String cpu,
      int window,
      int warmup,
      int seconds,
      int rateSeconds,
      int depth,
      int rate,
      double minutes) {}

  /**
   * Returns the section: {@code depthRows} has one pair (update, append) per worker count of {@code
   * workers}, or none; {@code rateRow} is the pair at the fixed rate, or null.
   */
  static String section(
      Settings s, List<Integer> workers, List<EngineResult[]> depthRows, EngineResult[] rateRow) {
    StringBuilder md = new StringBuilder(TITLE).append("\n\n");
    md.append(measured(s));
    md.append("```\n./mvnw -q -pl benchmarks -am package -DskipTests\n")
        .append("FENCING_JDBC_URL='jdbc:postgresql://localhost:5432/bench_engines")
        .append("?user=postgres&password=postgres' \\\n")
        .append(
            "  java -cp benchmarks/target/benchmarks.jar dev.fencing.benchmarks.EngineBenchmark")
        .append(s.arguments().isEmpty() ? "" : " " + s.arguments())
        .append("\n```\n\n");
    md.append(
        String.format(
            Locale.ROOT,
            "Both engines of `fencing-postgres` (`PostgresFencing.builder(ds).engine(...)`:"
                + " `APPEND_ONLY`, the default, and `UPDATE_IN_PLACE`; [ENGINE.md](ENGINE.md))"
                + " driven the same way: each run a fresh JVM (G1, 1 GB heap) on a fresh schema,"
                + " `FencedWorkers` as the README sets it up (batch 100, prefetch 400, 30 s lease"
                + " with heartbeats, LISTEN/NOTIFY, `maintenance()` every minute (on the"
                + " append-only engine it has nothing to do yet), a HikariCP pool of 10), a 1 ms"
                + " handler on the runtime's default threads (virtual on Java 24 and later, platform"
                + " before; a baseline jar runs with its own default), and a producer thread in"
                + " the same JVM. The engines alternate at each"
                + " point, and which goes first alternates too. **Both get plain `enqueueAll`"
                + " batches**: the append-only engine has no keyed enqueue yet, so this producer is"
                + " not `LoadBenchmark`'s keyed one.%n%n"
                + "In the shape of hardbyte/postgresql-job-queue-benchmarking (its `depth-target`"
                + " producer, `WORKER_COUNT`, `JOB_WORK_MS=1`, clean-phase medians): workers are"
                + " handler threads (the harness's in-flight handler concurrency); the producer"
                + " keeps %,d jobs enqueued and *not yet claimed* (the harness's `queue_depth`, here"
                + " counted exactly as enqueued − claimed by the runtime rather than polled every"
                + " 200 ms), in batches of at most 128 (`PRODUCER_BATCH_MAX`) of about 256 bytes"
                + " (`JOB_PAYLOAD_BYTES`), without a pause while short; a warm-up of %d s is left"
                + " out and jobs/s is the median of the clean phase's %d s windows (%d s). Claim"
                + " latency is from just before the enqueue to the handler's start (the harness's"
                + " insert → worker start); its p50/p99 here are over every job of the clean phase,"
                + " where the harness reports the median of rolling 30 s percentiles. Where this"
                + " differs from `LoadBenchmark`'s depth and threads runs: that one keeps 4,000"
                + " jobs *not yet started* (so the prefetched jobs count), enqueues keyed batches"
                + " of up to 1,000 and leaves only the first window out.%n%n",
            s.depth(),
            s.warmup(),
            s.window(),
            s.seconds()));
    if (!depthRows.isEmpty()) {
      depthTable(md, workers, depthRows);
    }
    if (rateRow != null) {
      rateTable(md, s, rateRow);
    }
    outcomes(md, s, workers, depthRows, rateRow);
    return md.toString();
  }

  private static void depthTable(
      StringBuilder md, List<Integer> workers, List<EngineResult[]> rows) {
    md.append("### Full load: jobs/s by workers (clean-phase median)\n\n");
    md.append(
        "| workers | update in place: jobs/s | append-only: jobs/s | append / update |"
            + " update: claim p50 / p99 (ms) | append: claim p50 / p99 (ms) |\n");
    md.append("|---:|---:|---:|---:|---:|---:|\n");
    for (int i = 0; i < rows.size(); i++) {
      EngineResult update = rows.get(i)[0];
      EngineResult append = rows.get(i)[1];
      md.append(
          String.format(
              Locale.ROOT,
              "| %d | %,.0f | %,.0f | %.2f | %s / %s | %s / %s |%n",
              workers.get(i),
              update.jobsPerSecond(),
              append.jobsPerSecond(),
              append.jobsPerSecond() / update.jobsPerSecond(),
              update.claimP50(),
              update.claimP99(),
              append.claimP50(),
              append.claimP99()));
    }
    StringBuilder bar = new StringBuilder();
    boolean met = true;
    for (int i = 0; i < rows.size(); i++) {
      if (workers.get(i) == 16 || workers.get(i) == 64) {
        double ratio = rows.get(i)[1].jobsPerSecond() / rows.get(i)[0].jobsPerSecond();
        bar.append(
            String.format(
                Locale.ROOT, "%s%.2f at %d", bar.isEmpty() ? "" : ", ", ratio, workers.get(i)));
        met &= ratio >= 2.5;
      }
    }
    if (!bar.isEmpty()) {
      md.append("\nIssue 22's bar, append / update ≥ 2.5 at 16 and 64 workers: ")
          .append(bar)
          .append(met ? ": met.\n" : ": **not met**.\n");
    }
    md.append('\n');
  }

  private static void rateTable(StringBuilder md, Settings s, EngineResult[] pair) {
    md.append(
        String.format(
            Locale.ROOT,
            "### %,d jobs/s offered from a cold start (32 workers)%n%n"
                + "Fresh schema, fresh JVM, the producer starting with the runtime; every window from"
                + " the first is measured (no warm-up), %d s in all. Completed jobs and claim"
                + " latency per %d s window, then over the whole run.%n%n",
            s.rate(),
            s.rateSeconds(),
            s.window()));
    md.append(
        "| t (s) | update: completed | update: claim p50 (ms) | update: claim p99 (ms) |"
            + " append: completed | append: claim p50 (ms) | append: claim p99 (ms) |\n");
    md.append("|---:|---:|---:|---:|---:|---:|---:|\n");
    List<String[]> update = pair[0].windows();
    List<String[]> append = pair[1].windows();
    for (int w = 0; w < Math.min(update.size(), append.size()); w++) {
      String[] u = update.get(w);
      String[] a = append.get(w);
      md.append(
          String.format(
              Locale.ROOT,
              "| %s | %s | %s | %s | %s | %s | %s |%n",
              u[0],
              u[2],
              u[4],
              u[5],
              a[2],
              a[4],
              a[5]));
    }
    md.append(
        String.format(
            Locale.ROOT,
            "| **whole run** | %s/s (median) | **%s** | **%s** | %s/s (median) | **%s** | **%s** |%n%n",
            pair[0].summary()[2],
            pair[0].claimP50(),
            pair[0].claimP99(),
            pair[1].summary()[2],
            pair[1].claimP50(),
            pair[1].claimP99()));
    md.append(
        String.format(
            Locale.ROOT,
            "Issue 22's bar, claim p99 under 50 ms over the whole run from a cold start: update in"
                + " place %s ms (%s), append-only %s ms (%s).%n%n",
            pair[0].claimP99(),
            underFifty(pair[0]),
            pair[1].claimP99(),
            underFifty(pair[1])));
  }

  private static String underFifty(EngineResult r) {
    try {
      return Double.parseDouble(r.claimP99()) < 50 ? "met" : "**not met**";
    } catch (NumberFormatException e) {
      return "no samples";
    }
  }

  /** The line of when, where and how long, with the blank line after it. */
  static String measured(Settings s) {
    return String.format(
        Locale.ROOT,
        "Measured %s. %s CPU: %s. The whole run took %.1f minutes.%n%n",
        s.date(),
        s.machine(),
        s.cpu(),
        s.minutes());
  }

  /** Writes the subsection of every run's windows and outcome, the engines of each row in turn. */
  static void outcomes(
      StringBuilder md,
      Settings s,
      List<Integer> workers,
      List<EngineResult[]> depthRows,
      EngineResult[] rateRow) {
    md.append("### Every run's outcome\n\n");
    md.append(
        "Completed jobs/s of each window from the start (the warm-up's first; † where the engine's"
            + " tables were analyzed during the window, by autovacuum or a maintenance round), then"
            + " what became of every claim.\n\n");
    for (int i = 0; i < depthRows.size(); i++) {
      for (EngineResult r : depthRows.get(i)) {
        outcome(md, "depth, " + workers.get(i) + " workers", r, s.window());
      }
    }
    if (rateRow != null) {
      for (EngineResult r : rateRow) {
        outcome(md, "rate " + s.rate() + "/s", r, s.window());
      }
    }
  }

  private static void outcome(StringBuilder md, String run, EngineResult r, int window) {
    md.append("- ")
        .append(run)
        .append(", ")
        .append(
            switch (r.engine()) {
              case "append" -> "append-only";
              case "today" -> "today's engine (update in place, the earlier build)";
              default -> "update in place";
            })
        .append(": ");
    String analyzes = "0";
    for (String[] w : r.windows()) {
      md.append(
          String.format(
              Locale.ROOT,
              "%,d%s ",
              Long.parseLong(w[2].replace(",", "")) / Math.max(1, window),
              w[9].equals(analyzes) ? "" : "†"));
      analyzes = w[9];
    }
    md.append("jobs/s. ").append(r.outcome()).append('\n');
  }
}
