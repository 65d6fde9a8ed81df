package dev.fencing.benchmarks;

import com.zaxxer.hikari.HikariDataSource;
import dev.fencing.FencedQueue;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.runtime.FencedWorkers;
import dev.fencing.testkit.db.PostgresFixture;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Handlers on platform threads against virtual threads ({@code FencedWorkers.Builder
 * #virtualThreads}), same run: handlers that block (a sleep, standing in for a call to another
 * service) at several concurrencies, and handlers that compute (a hash loop of 400,000 steps). For
 * each row a fresh queue is kept at a depth of 4,000 by a producer, a runtime with batches of 100
 * (and a prefetch of 2 batches, or the concurrency if larger) runs for a warm-up and then a
 * measured window; the row gives completed jobs per second in the window, the JVM's CPU per job,
 * and the peak number of platform threads. Platform and virtual alternate, each pair in the order
 * platform, virtual, then again virtual, platform; the table shows the mean of the two. Nothing
 * here asserts a time.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar dev.fencing.benchmarks.HandlerThreadsBenchmark
 *   [--quick] [--seconds S] [--warmup S] [--sleep-ms MS] [--depth N] [--out FILE]
 *   [--doc docs/BENCHMARKS.md]
 * </pre>
 */
public final class HandlerThreadsBenchmark {

  static final String TITLE = "## Handlers on platform and virtual threads (issue 23)";
  private static final String SCHEMA = "bench_handler_threads";

  private HandlerThreadsBenchmark() {}

  /** A kind of handler at one concurrency. */
  record Row(String kind, int concurrency) {}

  /** Runs the benchmark; see the class comment for the arguments. */
  public static void main(String[] args) throws Exception {
    boolean quick = List.of(args).contains("--quick");
    int seconds = Args.intArg(args, "--seconds", quick ? 1 : 10);
    int warmup = Args.intArg(args, "--warmup", quick ? 0 : 3);
    int sleepMs = Args.intArg(args, "--sleep-ms", 50);
    int depth = Args.intArg(args, "--depth", quick ? 200 : 4_000);
    String out = Args.stringArg(args, "--out", null);
    String doc = Args.stringArg(args, "--doc", null);
    List<Row> rows =
        quick
            ? List.of(new Row("sleep", 16), new Row("compute", 2))
            : List.of(
                new Row("sleep", 16),
                new Row("sleep", 256),
                new Row("sleep", 1024),
                new Row("compute", 2),
                new Row("compute", 16));

    PostgresFixture.Database db = BenchDatabase.database();
    BenchDatabase.freshQueueSchema(db, SCHEMA);
    StringBuilder report = new StringBuilder();
    try (HikariDataSource pool = BenchDatabase.pool(db, 12)) {
      FencedQueue queue =
          PostgresFencing.builder(pool).schema(SCHEMA).install(false).build().queue();
      report.append(TITLE).append("\n\n");
      report.append(BenchDatabase.machine(pool)).append('\n');
      report.append(
          String.format(
              Locale.ROOT,
              "Command: `java -cp benchmarks/target/benchmarks.jar"
                  + " dev.fencing.benchmarks.HandlerThreadsBenchmark --doc docs/BENCHMARKS.md`."
                  + " Each row: a fresh queue kept at a depth of %,d, batches of 100, prefetch of"
                  + " 2 batches or the concurrency if larger, %d s of warm-up, then %d s measured; platform and"
                  + " virtual alternate (platform, virtual, virtual, platform) and each figure is"
                  + " the mean of its two runs. \"sleep\" handlers block for %d ms; \"compute\""
                  + " handlers run a hash loop of 400,000 steps (about 0.4 ms of CPU here). CPU is the JVM's (handlers, claims,"
                  + " commits), per job; threads is the peak count of platform threads.%n%n",
              depth,
              warmup,
              seconds,
              sleepMs));
      report.append(
          "| handler | concurrency | platform jobs/s | virtual jobs/s | virtual/platform"
              + " | platform CPU µs/job | virtual CPU µs/job | platform threads | virtual"
              + " threads |\n");
      report.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
      int n = 0;
      for (Row row : rows) {
        List<Result> platform = new ArrayList<>();
        List<Result> virtual = new ArrayList<>();
        for (boolean virtualFirst : quick ? new boolean[] {false} : new boolean[] {false, true}) {
          for (boolean v :
              virtualFirst ? new boolean[] {true, false} : new boolean[] {false, true}) {
            Result r = run(queue, "q" + n++, row, v, sleepMs, depth, warmup, seconds);
            (v ? virtual : platform).add(r);
          }
        }
        Result p = Result.mean(platform);
        Result v = Result.mean(virtual);
        report.append(
            String.format(
                Locale.ROOT,
                "| %s | %,d | %,.0f | %,.0f | %.2f | %,.0f | %,.0f | %d | %d |%n",
                row.kind.equals("sleep") ? "sleep " + sleepMs + " ms" : "compute",
                row.concurrency,
                p.jobsPerSecond,
                v.jobsPerSecond,
                p.jobsPerSecond == 0 ? 0 : v.jobsPerSecond / p.jobsPerSecond,
                p.cpuMicrosPerJob,
                v.cpuMicrosPerJob,
                p.peakThreads,
                v.peakThreads));
      }
    }
    Args.printAndWrite(report.toString(), out);
    if (doc != null) {
      Path file = Path.of(doc);
      Files.writeString(file, OtherSections.replaced(file, report.toString()));
    }
  }

  /** One row's measured window. */
  record Result(double jobsPerSecond, double cpuMicrosPerJob, int peakThreads) {
    static Result mean(List<Result> results) {
      return new Result(
          results.stream().mapToDouble(Result::jobsPerSecond).average().orElse(0),
          results.stream().mapToDouble(Result::cpuMicrosPerJob).average().orElse(0),
          results.stream().mapToInt(Result::peakThreads).max().orElse(0));
    }
  }

  private static Result run(
      FencedQueue queue,
      String queueName,
      Row row,
      boolean virtual,
      int sleepMs,
      int depth,
      int warmup,
      int seconds)
      throws Exception {
    AtomicLong done = new AtomicLong();
    AtomicInteger enqueued = new AtomicInteger();
    AtomicBoolean producing = new AtomicBoolean(true);
    queue.enqueueAll(queueName, Collections.nCopies(depth, "{}"));
    enqueued.addAndGet(depth);
    Thread producer =
        Thread.ofPlatform()
            .name("producer-" + queueName)
            .start(
                () -> {
                  while (producing.get()) {
                    if (enqueued.get() - done.get() < depth) {
                      queue.enqueueAll(queueName, Collections.nCopies(500, "{}"));
                      enqueued.addAndGet(500);
                    } else {
                      sleepQuietly(1);
                    }
                  }
                });
    var threads = ManagementFactory.getThreadMXBean();
    var os =
        (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    threads.resetPeakThreadCount();
    try (FencedWorkers workers =
        FencedWorkers.builder(queue)
            .receiver(AcceptingReceiver.INSTANCE)
            .owner("bench-" + queueName)
            .virtualThreads(virtual)
            .queue(
                queueName,
                (job, cancellation) -> {
                  if (row.kind.equals("sleep")) {
                    Thread.sleep(sleepMs);
                  } else {
                    compute();
                  }
                  done.incrementAndGet();
                  return "{}";
                },
                q ->
                    q.concurrency(row.concurrency)
                        .batchSize(100)
                        .prefetch(Math.max(row.concurrency, 200))
                        .leaseLength(Duration.ofSeconds(30)))
            .start()) {
      Thread.sleep(Duration.ofSeconds(warmup));
      long jobs0 = done.get();
      long cpu0 = os.getProcessCpuTime();
      long t0 = System.nanoTime();
      Thread.sleep(Duration.ofSeconds(seconds));
      long jobs = done.get() - jobs0;
      long cpu = os.getProcessCpuTime() - cpu0;
      double elapsed = (System.nanoTime() - t0) / 1e9;
      producing.set(false);
      producer.join();
      return new Result(
          jobs / elapsed, jobs == 0 ? 0 : cpu / 1e3 / jobs, threads.getPeakThreadCount());
    } finally {
      producing.set(false);
      producer.join();
    }
  }

  private static volatile long sink;

  /** A fixed amount of CPU: hashing, which no compiler removes. */
  private static void compute() {
    long h = 1125899906842597L;
    for (int i = 0; i < 400_000; i++) {
      h = 31 * h + (i ^ (h >>> 7));
    }
    sink = h;
  }

  private static void sleepQuietly(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
