package dev.fencing.benchmarks;

import java.time.LocalDate;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/** The Markdown section of {@link ScaleOutBenchmark}: settings, every row, the ratios. */
final class ScaleOutReport {

  static final String TITLE = "## Many runtimes on one queue: scale-out (issue 33)";

  private ScaleOutReport() {}

  /** What the run was asked, where it ran, and how long it took. */
  record Header(String arguments, LocalDate date, String machine, String cpu, double minutes) {}

  /** Returns the section for {@code rows}, in the order they ran. */
  static String section(Header h, ScaleOutSettings s, List<ScaleOutRow> rows) {
    StringBuilder md = new StringBuilder(TITLE).append("\n\n");
    md.append(
        String.format(
            Locale.ROOT,
            "Measured %s. %s CPU: %s. The whole run took %.1f minutes.%n%n",
            h.date(),
            h.machine(),
            h.cpu(),
            h.minutes()));
    md.append("```\n./mvnw -q -pl benchmarks -am package -DskipTests\n")
        .append("FENCING_JDBC_URL=jdbc:postgresql://127.0.0.1:5432/postgres")
        .append(" FENCING_JDBC_USER=postgres FENCING_JDBC_PASSWORD=postgres \\\n")
        .append(
            "  java -cp benchmarks/target/benchmarks.jar dev.fencing.benchmarks.ScaleOutBenchmark")
        .append(h.arguments().isEmpty() ? "" : " " + h.arguments())
        .append("\n```\n\n");
    md.append(
        String.format(
            Locale.ROOT,
            "A deployment of R pods is R claim loops on one queue. Each row runs R `FencedWorkers`"
                + " on one queue, each with its own owner name, its own `PostgresFencing` handle"
                + " and its own HikariCP pool of %d connections (LISTEN/NOTIFY on, its listening"
                + " connection taken from that pool), %d handler threads, 1 ms handlers, and"
                + " otherwise the runtime's defaults (batch 100, prefetch %s, 30 s lease with"
                + " heartbeats), spread evenly over up to %d worker JVMs (C2, G1, 1 GB heap). Shallow"
                + " rows: a producer thread in the benchmark's JVM keeps %,d jobs pending"
                + " (enqueued and not yet claimed, read with `depth()`), topping up in"
                + " `enqueueAll` batches of at most 500 as jobs are claimed. Deep rows: %,d jobs"
                + " seeded before the row, no producer (pending at end shows none ran dry). Every"
                + " row on a fresh schema; the engines alternate at each point, which goes first"
                + " alternates too; %,d ms of warm-up, then %,d ms measured in every JVM at once."
                + " The PgBouncer rows: the largest row again through PgBouncer %s in transaction"
                + " mode (%d server connections, `prepareThreshold=0`, notifications off since"
                + " LISTEN needs a session, so idle runtimes poll every 50 ms; docs/HA.md); the"
                + " producer and the observer connect directly.%n%n"
                + "Per row: committed jobs/s over the window; PostgreSQL CPU (utime + stime of"
                + " the database's client backends, `/proc`, the producer's included) and the"
                + " worker JVMs' CPU per job (PgBouncer's own in its column); claim p50/p99: the"
                + " time of each `claimBatch` call in the workers; claim and commit statements per job, empty claims"
                + " (claims that returned nothing, of all claims); lock-wait samples:"
                + " `pg_stat_activity` every %d ms, active backends waiting on a Lock or LWLock,"
                + " of all active backends sampled (the three most frequent waits of any kind in"
                + " brackets); pending in window: the producer's own reads of `depth()` over the"
                + " window, mean / least (shallow rows; a mean under half the target means the row"
                + " measured the producer falling behind, not the claimers, and its ratio line"
                + " says so). \"vs best\" is jobs/s over the best direct row of the same engine"
                + " and queue.%n%n",
            s.pool(),
            s.threads(),
            s.prefetch() > 0 ? Integer.toString(s.prefetch()) : "= threads",
            s.jvms(),
            s.depth(),
            s.deep(),
            s.warmupMillis(),
            s.millis(),
            "1.18",
            s.bouncerPool(),
            PgObserver.SAMPLE_MILLIS));
    md.append(
        "| queue | runtimes | JVMs | engine | path | jobs/s | vs best | PG CPU µs/job | JVM CPU"
            + " µs/job | PgBouncer µs/job | claim p50 / p99 (ms) | claims / job | commits / job | empty claims |"
            + " lock-wait samples / active | pending in window, mean / least | pending at end |\n");
    md.append(
        "|---|---:|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|\n");
    for (ScaleOutRow r : rows) {
      ScaleOutPoint p = r.point();
      md.append(
          String.format(
              Locale.ROOT,
              "| %s | %d | %d | %s | %s | %,.0f | %.2f | %,.1f | %,.1f | %s | %.1f / %.1f | %.3f | %.3f |"
                  + " %,d (%.0f %%) | %,d / %,d %s| %s | %,d |%n",
              p.queueLabel(),
              p.runtimes(),
              r.jvms(),
              p.engineLabel(),
              p.bouncer() ? "PgBouncer" : "direct",
              r.jobsPerSecond(),
              r.jobsPerSecond() / best(rows, p).map(ScaleOutRow::jobsPerSecond).orElse(Double.NaN),
              r.microsPerJob(r.pg().backendCpuNanos()),
              r.microsPerJob(r.workerCpuNanos()),
              p.bouncer()
                  ? String.format(Locale.ROOT, "%,.1f", r.microsPerJob(r.bouncerCpuNanos()))
                  : "–",
              r.claimP50(),
              r.claimP99(),
              r.claimsPerJob(),
              r.commitsPerJob(),
              r.emptyClaims(),
              100 * r.emptyShare(),
              r.pg().lockWaitSamples(),
              r.pg().active(),
              r.pg().topWaits(),
              r.depths().reads() == 0
                  ? "–"
                  : String.format(Locale.ROOT, "%,.0f / %,d", r.depths().mean(), r.depths().min()),
              r.pendingAtEnd()));
    }
    md.append('\n');
    for (String engine : List.of("append", "update")) {
      ratios(md, s, rows, engine);
    }
    return md.toString();
  }

  /** The lines for one engine: R runtimes / best row, and PostgreSQL CPU at 64 vs 1. */
  private static void ratios(
      StringBuilder md, ScaleOutSettings s, List<ScaleOutRow> rows, String engine) {
    StringBuilder lines = new StringBuilder();
    for (boolean deep : new boolean[] {false, true}) {
      Optional<ScaleOutRow> best = best(rows, new ScaleOutPoint(engine, deep, 0, false));
      if (best.isEmpty()) {
        continue;
      }
      String queue =
          deep
              ? String.format(Locale.ROOT, "deep (%,d seeded)", s.deep())
              : String.format(Locale.ROOT, "shallow (depth-target %,d)", s.depth());
      double top = best.get().jobsPerSecond();
      lines.append(
          String.format(
              Locale.ROOT,
              "- %s: best row %d runtimes, %,.0f jobs/s%n",
              queue,
              best.get().point().runtimes(),
              top));
      for (ScaleOutRow r : rows) {
        ScaleOutPoint p = r.point();
        if (p.engine().equals(engine) && p.deep() == deep && (p.runtimes() >= 16 || p.bouncer())) {
          double ratio = r.jobsPerSecond() / top;
          lines.append(
              String.format(
                  Locale.ROOT,
                  "- %s: `%d runtimes%s / best row: %.2f`%s%s%n",
                  queue,
                  p.runtimes(),
                  p.bouncer() ? " through PgBouncer" : "",
                  ratio,
                  ratio >= 0.8 ? " (≥ 0.8)" : " (**below 0.8**)",
                  r.producerKept(s.depth())
                      ? ""
                      : String.format(
                          Locale.ROOT,
                          "; the producer fell behind (mean pending %,.0f of %,d): the row"
                              + " measured it, not the claimers",
                          r.depths().mean(),
                          s.depth())));
        }
      }
      pgCpu(lines, rows, engine, deep, queue);
    }
    if (!lines.isEmpty()) {
      md.append(engine.equals("append") ? "Append-only (the default engine):" : "Update in place:")
          .append("\n\n")
          .append(lines)
          .append('\n');
    }
  }

  private static void pgCpu(
      StringBuilder lines, List<ScaleOutRow> rows, String engine, boolean deep, String queue) {
    Optional<ScaleOutRow> one = find(rows, engine, deep, r -> r.point().runtimes() == 1);
    Optional<ScaleOutRow> most =
        rows.stream()
            .filter(r -> r.point().engine().equals(engine) && r.point().deep() == deep)
            .filter(r -> !r.point().bouncer())
            .max(Comparator.comparingInt(r -> r.point().runtimes()));
    if (one.isPresent() && most.isPresent() && most.get() != one.get()) {
      double a = one.get().microsPerJob(one.get().pg().backendCpuNanos());
      double b = most.get().microsPerJob(most.get().pg().backendCpuNanos());
      lines.append(
          String.format(
              Locale.ROOT,
              "- %s: PostgreSQL CPU per job, %d runtimes / 1: %,.1f / %,.1f µs = %.2f%n",
              queue,
              most.get().point().runtimes(),
              b,
              a,
              b / a));
    }
  }

  private static Optional<ScaleOutRow> find(
      List<ScaleOutRow> rows,
      String engine,
      boolean deep,
      java.util.function.Predicate<ScaleOutRow> also) {
    return rows.stream()
        .filter(r -> r.point().engine().equals(engine) && r.point().deep() == deep)
        .filter(r -> !r.point().bouncer())
        .filter(also)
        .findFirst();
  }

  /** The direct row of {@code like}'s engine and queue with the most jobs/s. */
  private static Optional<ScaleOutRow> best(List<ScaleOutRow> rows, ScaleOutPoint like) {
    return rows.stream()
        .filter(r -> r.point().engine().equals(like.engine()) && r.point().deep() == like.deep())
        .filter(r -> !r.point().bouncer())
        .max(Comparator.comparingDouble(ScaleOutRow::jobsPerSecond));
  }
}
