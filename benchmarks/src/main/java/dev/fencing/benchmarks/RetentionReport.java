package dev.fencing.benchmarks;

import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * The rows {@link RetentionBenchmark} measures and the Markdown section it prints from them: the
 * main table (claim p50 and p99, jobs/s, p50 against the fresh tables, the storage cells of the
 * engine's tables), the engine's detail table, the notes of the aging, and one line per maintained
 * variant comparing its last row with the fresh one.
 */
final class RetentionReport {

  private RetentionReport() {}

  /** One measured row. */
  record Row(
      String table,
      String variant,
      boolean longTransaction,
      boolean drained,
      LatencyRecorder latencies,
      long completed,
      long emptyClaims,
      double seconds,
      AgedTables.Storage storage) {

    double p50() {
      return latencies.percentileMillis(50);
    }

    double p99() {
      return latencies.percentileMillis(99);
    }

    double jobsPerSecond() {
      return completed / seconds;
    }

    /** The row of the report's main table, p50 compared with {@code freshP50}. */
    String line(double freshP50) {
      return String.format(
          Locale.ROOT,
          "| %s | %s | %s | %s | %.2f | %.2f | %,.0f | %.2fx |%s |",
          table,
          variant,
          longTransaction ? "yes" : "no",
          drained ? "drained" : "backlog",
          p50(),
          p99(),
          jobsPerSecond(),
          p50() / freshP50,
          storage.cells());
    }
  }

  /** The p50 of the first row of {@code rows} with the queue drained or not, as {@code drained}. */
  static double fresh(List<Row> rows, boolean drained) {
    return rows.stream().filter(r -> r.drained() == drained).findFirst().orElseThrow().p50();
  }

  /** The Markdown section. */
  static String report(
      RetentionSettings settings,
      Duration lease,
      AgedTables tables,
      String[] args,
      String machine,
      List<Row> rows,
      List<String> notes) {
    StringBuilder s = new StringBuilder();
    s.append(tables.names().title()).append("\n\n");
    s.append(
        "`java -cp benchmarks/target/benchmarks.jar dev.fencing.benchmarks.RetentionBenchmark");
    for (String a : args) {
      s.append(' ').append(a);
    }
    s.append("`\n\n").append(machine).append('\n');
    s.append(
        String.format(
            Locale.ROOT,
            "Per row: %d workers claim one job at a time (`claim`, lease %d min) and complete it,"
                + " for %d s after a warm-up of %.1f s, with %,d pending jobs on the queue at the"
                + " start (`backlog`), or on the queue drained first, each worker enqueueing one"
                + " job before each claim (`drained`: claims find next to nothing waiting, as on"
                + " a queue that keeps up). p50/p99 are of single `claim` calls; jobs/s is"
                + " claim-to-complete. ",
            settings.threads(),
            lease.toMinutes(),
            settings.seconds(),
            settings.warmupMillis() / 1000.0,
            settings.backlog()));
    s.append(tables.describe(settings));
    s.append(
        " p50 vs fresh compares with the first row of the same queue column. A CHECKPOINT runs after each aging step,"
            + " before its windows.\n\n");
    s.append(
            "| table | variant | long transaction | queue | claim p50 ms | claim p99 ms | jobs/s | p50"
                + " vs fresh |")
        .append(tables.storageHeader())
        .append(" |\n");
    s.append("|---|---|---|---|---:|---:|---:|---:|")
        .append(tables.storageSeparator())
        .append("|\n");
    for (Row r : rows) {
      s.append(r.line(fresh(rows, r.drained()))).append('\n');
    }
    s.append('\n');
    String detailHeader = tables.detailHeader();
    if (!detailHeader.isEmpty()) {
      s.append(detailHeader);
      for (Row r : rows) {
        s.append(
            String.format(
                Locale.ROOT,
                "| %s | %s | %s | %s |%s |%n",
                r.table(),
                r.variant(),
                r.longTransaction() ? "yes" : "no",
                r.drained() ? "drained" : "backlog",
                r.storage().detail()));
      }
      s.append('\n');
    }
    long empties = rows.stream().mapToLong(Row::emptyClaims).sum();
    if (empties > 0) {
      s.append(
          String.format(
              Locale.ROOT,
              "%,d claims in the windows found no job (the backlog ran dry); they are not in the"
                  + " percentiles.%n%n",
              empties));
    }
    s.append("Aging (wall time) and notes:\n\n");
    for (String n : notes) {
      s.append("- ").append(n).append('\n');
    }
    s.append('\n');
    for (RetentionVariant v : tables.names().variants()) {
      for (boolean drained : new boolean[] {false, true}) {
        Row last = null;
        Row first = null;
        for (Row r : rows) {
          if (r.drained() == drained && !r.longTransaction()) {
            first = first == null ? r : first;
            if (r.variant().equals(v.label)) {
              last = r;
            }
          }
        }
        if (last != null && v.maintained) {
          s.append(
              String.format(
                  Locale.ROOT,
                  "With %s, %s processed jobs, queue %s: claim p50 %.2fx fresh, p99 %.2fx fresh"
                      + " (target: p50 within 1.5x).%n",
                  v.label,
                  last.table().replace("after ", ""),
                  drained ? "drained" : "with a backlog",
                  last.p50() / first.p50(),
                  last.p99() / first.p99()));
        }
      }
    }
    return s.toString();
  }
}
