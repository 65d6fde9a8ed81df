package dev.fencing.benchmarks;

import com.zaxxer.hikari.HikariDataSource;
import dev.fencing.FencedQueue;
import dev.fencing.KeyedJob;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.testkit.db.PostgresFixture;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * Enqueue throughput with and without idempotency keys, in one run: {@code plain} ({@code
 * enqueue}/{@code enqueueAll}), {@code keyed} (every key new) and {@code keyed again} (every key
 * already taken: the look-up path, nothing written). Each row runs its threads for the same time on
 * a fresh schema.
 *
 * <p>Arguments: {@code [--quick] [--out FILE]}; PostgreSQL from {@code FENCING_JDBC_URL}, else
 * embedded.
 */
public final class EnqueueBenchmark {

  private static final String SCHEMA = "bench_enqueue";
  private static final String QUEUE = "bench";
  private static final long TAKEN = 50_000;

  /** One row: jobs per second for a mode, a batch size and a thread count. */
  record Row(String mode, int batch, int threads, double jobsPerSecond) {}

  private EnqueueBenchmark() {}

  public static void main(String[] args) throws Exception {
    boolean quick = List.of(args).contains("--quick");
    int outAt = List.of(args).indexOf("--out");
    long millis = quick ? 300 : 5_000;
    PostgresFixture.Database db = BenchDatabase.database();
    // a first pass, thrown away: otherwise the first row also measures the JVM's warm-up
    for (String mode : List.of("plain", "keyed", "keyed again")) {
      run(db, mode, 1, 1, millis / 2);
    }
    List<Row> rows = new ArrayList<>();
    for (int batch : new int[] {1, 100}) {
      for (int threads : new int[] {1, 4}) {
        for (String mode : List.of("plain", "keyed", "keyed again")) {
          rows.add(run(db, mode, batch, threads, millis));
        }
      }
    }
    String report = report(rows, db, millis, BenchDatabase.machine(db.dataSource()));
    System.out.println(report);
    if (outAt >= 0) {
      Path out = Path.of(args[outAt + 1]);
      Files.createDirectories(out.toAbsolutePath().getParent());
      Files.writeString(out, report);
    }
  }

  static Row run(PostgresFixture.Database db, String mode, int batch, int threads, long millis)
      throws InterruptedException {
    BenchDatabase.freshQueueSchema(db, SCHEMA);
    try (HikariDataSource ds = BenchDatabase.pool(db, threads)) {
      FencedQueue queue = PostgresFencing.builder(ds).schema(SCHEMA).install(false).build().queue();
      AtomicLong nextKey = new AtomicLong();
      long keys = Long.MAX_VALUE;
      if (mode.equals("keyed again")) {
        // the run cycles through keys all taken beforehand
        keys = TAKEN;
        for (long from = 0; from < TAKEN; from += 10_000) {
          queue.enqueueKeyed(QUEUE, keyed(from, 10_000));
        }
        // as autovacuum would soon: planned as empty, the look-up would scan the table
        BenchDatabase.seed(ds, SCHEMA, "unused", 0);
      }
      long cycle = keys;
      LongAdder done = new LongAdder();
      long warmUp = Math.min(1_000, millis / 2);
      long start = System.nanoTime();
      long measureFrom = start + warmUp * 1_000_000;
      long end = measureFrom + millis * 1_000_000;
      LoadThreads.join(
          LoadThreads.start(
              threads,
              () -> {
                while (System.nanoTime() < end) {
                  int n = enqueue(queue, mode, batch, nextKey, cycle);
                  long now = System.nanoTime();
                  if (now >= measureFrom && now < end) {
                    done.add(n);
                  }
                }
              }));
      return new Row(mode, batch, threads, done.sum() * 1000.0 / millis);
    }
  }

  private static int enqueue(
      FencedQueue queue, String mode, int batch, AtomicLong nextKey, long cycle) {
    if (mode.equals("plain")) {
      if (batch == 1) {
        queue.enqueue(QUEUE, "{}");
      } else {
        queue.enqueueAll(QUEUE, java.util.Collections.nCopies(batch, "{}"));
      }
      return batch;
    }
    long from = nextKey.getAndAdd(batch) % cycle;
    if (batch == 1) {
      queue.enqueue(QUEUE, new KeyedJob("key-" + from, "{}"));
    } else {
      queue.enqueueKeyed(QUEUE, keyed(from, batch));
    }
    return batch;
  }

  private static List<KeyedJob> keyed(long from, int n) {
    List<KeyedJob> jobs = new ArrayList<>(n);
    for (long k = from; k < from + n; k++) {
      jobs.add(new KeyedJob("key-" + k, "{}"));
    }
    return jobs;
  }

  private static String report(
      List<Row> rows, PostgresFixture.Database db, long millis, String machine) {
    StringBuilder md = new StringBuilder();
    md.append("## Enqueue with and without idempotency keys\n\n")
        .append(machine)
        .append("\n")
        .append(
            "`java -cp benchmarks/target/benchmarks.jar dev.fencing.benchmarks.EnqueueBenchmark`; ")
        .append("PostgreSQL: ")
        .append(db.source())
        .append("; ")
        .append(millis)
        .append(
            " ms measured per row after a warm-up (and after one unmeasured pass of every mode), fresh schema per row. `keyed again`: every")
        .append(" key already taken, so each call only looks its jobs up.\n\n")
        .append("| mode | batch | threads | jobs/s | vs plain |\n|---|---:|---:|---:|---:|\n");
    for (Row r : rows) {
      double plain =
          rows.stream()
              .filter(
                  p ->
                      p.mode().equals("plain")
                          && p.batch() == r.batch()
                          && p.threads() == r.threads())
              .findFirst()
              .orElseThrow()
              .jobsPerSecond();
      md.append(
          String.format(
              Locale.ROOT,
              "| %s | %d | %d | %,.0f | %.2f |%n",
              r.mode(),
              r.batch(),
              r.threads(),
              r.jobsPerSecond(),
              r.jobsPerSecond() / plain));
    }
    return md.toString();
  }
}
