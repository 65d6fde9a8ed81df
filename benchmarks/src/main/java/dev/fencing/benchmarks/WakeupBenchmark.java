package dev.fencing.benchmarks;

import com.zaxxer.hikari.HikariDataSource;
import dev.fencing.FencedQueue;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.runtime.FencedWorkers;
import dev.fencing.testkit.db.PostgresFixture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;

/**
 * Wake-ups against polling: enqueue-to-claim latency on a sparse queue (one job at a random pause
 * of 20 to 200 ms), for a runtime woken by LISTEN/NOTIFY with a 1 s fallback poll, and for runtimes
 * polling every 50 ms and every 1 s, all three at once in one run; then enqueue throughput with and
 * without NOTIFY, single and in batches of 100.
 *
 * <p>Latency is from just before {@code enqueue} to the handler's start, on one JVM's clock; it
 * includes the enqueue's round trip. Prints a Markdown section; {@code --out FILE} also writes it.
 * {@code --quick} is the smoke form. Nothing here asserts a time.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar dev.fencing.benchmarks.WakeupBenchmark [--quick]
 *   [--jobs N] [--seconds S] [--threads T] [--out FILE]
 * </pre>
 */
public final class WakeupBenchmark {

  private static final String SCHEMA = "bench_wakeups";

  private WakeupBenchmark() {}

  /** Runs the benchmark; see the class comment for the arguments. */
  public static void main(String[] args) throws Exception {
    boolean quick = List.of(args).contains("--quick");
    int jobs = Args.intArg(args, "--jobs", quick ? 15 : 300);
    int seconds = Args.intArg(args, "--seconds", quick ? 1 : 5);
    int threads = Args.intArg(args, "--threads", 4);
    String out = Args.stringArg(args, "--out", null);

    PostgresFixture.Database db = BenchDatabase.database();
    BenchDatabase.freshQueueSchema(db, SCHEMA);
    StringBuilder report = new StringBuilder();
    try (HikariDataSource pool = BenchDatabase.pool(db, 2 * threads + 6)) {
      report.append("## Wake-ups: LISTEN/NOTIFY against polling\n\n");
      report.append(BenchDatabase.machine(pool)).append('\n');
      report.append(latencies(pool, jobs));
      report.append('\n');
      report.append(throughput(pool, seconds, threads));
    }
    Args.printAndWrite(report.toString(), out);
  }

  /** One runtime per mode, all fed at once by their own sparse producers. */
  private static String latencies(HikariDataSource pool, int jobs) throws Exception {
    List<Mode> modes =
        List.of(
            new Mode("notify, fallback poll 1 s", "woken", true, Duration.ofSeconds(1)),
            new Mode("poll every 50 ms", "poll_50ms", false, Duration.ofMillis(50)),
            new Mode("poll every 1 s", "poll_1s", false, Duration.ofSeconds(1)));
    List<FencedWorkers> runtimes = new ArrayList<>();
    List<Thread> producers = new ArrayList<>();
    try {
      for (Mode m : modes) {
        FencedQueue queue =
            PostgresFencing.builder(pool)
                .schema(SCHEMA)
                .install(false)
                .notifications(m.notify)
                .build()
                .queue();
        runtimes.add(
            FencedWorkers.builder(queue)
                .receiver(AcceptingReceiver.INSTANCE)
                .owner("bench-" + m.queue)
                .queue(
                    m.queue,
                    (job, cancellation) -> {
                      long sent = Long.parseLong(job.payload().replaceAll("[^0-9-]", ""));
                      m.record(System.nanoTime() - sent);
                      return "{}";
                    },
                    q -> q.concurrency(1).idleWait(m.wait).fallbackPoll(m.wait))
                .start());
        producers.add(
            Thread.ofPlatform()
                .name("producer-" + m.queue)
                .unstarted(() -> m.produce(queue, jobs)));
      }
      Thread.sleep(1_000); // the runtimes went idle, the listener listens: measure the steady state
      for (Thread t : producers) {
        t.start();
      }
      for (Thread t : producers) {
        t.join();
      }
      for (Mode m : modes) {
        m.done.await(30, TimeUnit.SECONDS);
      }
    } finally {
      for (FencedWorkers r : runtimes) {
        r.close();
      }
    }
    StringBuilder s = new StringBuilder();
    s.append("Enqueue to claim (handler start) on a sparse queue: ")
        .append(jobs)
        .append(
            " jobs per row, one every 20 to 200 ms (uniform), one runtime per row, all rows at"
                + " once.\n\n");
    s.append("| mode | jobs | p50 ms | p99 ms | max ms |\n|---|---:|---:|---:|---:|\n");
    for (Mode m : modes) {
      synchronized (m) {
        s.append(
            String.format(
                Locale.ROOT,
                "| %s | %d | %.1f | %.1f | %.1f |%n",
                m.name,
                m.latencies.count(),
                m.latencies.percentileMillis(50),
                m.latencies.percentileMillis(99),
                m.latencies.percentileMillis(100)));
      }
    }
    return s.toString();
  }

  /** Enqueue throughput with and without NOTIFY, single jobs and batches of 100. */
  private static String throughput(HikariDataSource pool, int seconds, int threads)
      throws InterruptedException {
    StringBuilder s = new StringBuilder();
    s.append("Enqueue throughput, ")
        .append(threads)
        .append(" threads for ")
        .append(seconds)
        .append(
            " s, twice per row in the order without, with, with, without NOTIFY, after a"
                + " warm-up of each; the notify rows pay PostgreSQL's serialised commit of"
                + " notifying transactions.\n\n");
    s.append("| enqueue | notify | jobs/s | commits/s |\n|---|---|---:|---:|\n");
    for (int batch : new int[] {1, 100}) {
      FencedQueue[] queues = new FencedQueue[2]; // [0] without, [1] with NOTIFY
      for (int notify = 0; notify < 2; notify++) {
        queues[notify] =
            PostgresFencing.builder(pool)
                .schema(SCHEMA)
                .install(false)
                .notifications(notify == 1)
                .build()
                .queue();
        enqueueFor(queues[notify], batch, seconds, threads); // warm-up
      }
      // without, with, with, without: a drift of the machine during the run favours neither
      long[] commits = new long[2];
      for (int notify : new int[] {0, 1, 1, 0}) {
        commits[notify] += enqueueFor(queues[notify], batch, seconds, threads);
      }
      for (int notify = 0; notify < 2; notify++) {
        s.append(
            String.format(
                Locale.ROOT,
                "| %s | %s | %,.0f | %,.0f |%n",
                batch == 1 ? "single" : "batch of " + batch,
                notify == 1 ? "yes" : "no",
                commits[notify] * batch / (2.0 * seconds),
                commits[notify] / (2.0 * seconds)));
      }
    }
    return s.toString();
  }

  private static long enqueueFor(FencedQueue queue, int batch, int seconds, int threads)
      throws InterruptedException {
    List<String> payloads = IntStream.range(0, batch).mapToObj(i -> "{}").toList();
    AtomicBoolean running = new AtomicBoolean(true);
    AtomicLong commits = new AtomicLong();
    List<Thread> workers =
        LoadThreads.start(
            threads,
            () -> {
              while (running.get()) {
                if (batch == 1) {
                  queue.enqueue("throughput", "{}");
                } else {
                  queue.enqueueAll("throughput", payloads);
                }
                commits.incrementAndGet();
              }
            });
    Thread.sleep(TimeUnit.SECONDS.toMillis(seconds));
    long counted = commits.get();
    running.set(false);
    LoadThreads.join(workers);
    return counted;
  }

  /** A runtime's settings and the latencies its handler saw. */
  private static final class Mode {
    final String name;
    final String queue;
    final boolean notify;
    final Duration wait;
    final LatencyRecorder latencies = new LatencyRecorder();
    final CountDownLatch done = new CountDownLatch(1);
    int expected = Integer.MAX_VALUE;

    Mode(String name, String queue, boolean notify, Duration wait) {
      this.name = name;
      this.queue = queue;
      this.notify = notify;
      this.wait = wait;
    }

    synchronized void record(long nanos) {
      latencies.record(nanos);
      if (latencies.count() >= expected) {
        done.countDown();
      }
    }

    void produce(FencedQueue queue, int jobs) {
      synchronized (this) {
        expected = jobs;
      }
      for (int i = 0; i < jobs; i++) {
        try {
          Thread.sleep(ThreadLocalRandom.current().nextLong(20, 201));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
        queue.enqueue(this.queue, "{\"sent\": " + System.nanoTime() + "}");
      }
    }
  }
}
