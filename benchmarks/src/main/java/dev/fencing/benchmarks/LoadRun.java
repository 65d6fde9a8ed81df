package dev.fencing.benchmarks;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.fencing.FencedQueue;
import dev.fencing.JobOptions;
import dev.fencing.KeyedJob;
import dev.fencing.QueueLimits;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.runtime.FencedWorkers;
import dev.fencing.runtime.QueueStats;
import dev.fencing.runtime.WorkOutcome;
import dev.fencing.testkit.db.PostgresFixture;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One run of {@link LoadBenchmark} in a JVM of its own: a runtime set up as the README advises, a
 * producer thread (fixed rate, or keeping a depth), and one table row per window. Prints Markdown
 * table rows, then a line starting with {@code summary|}.
 */
public final class LoadRun {

  static final String SUMMARY_HEADER =
      "| run | threads | offered/s | completed/s (median window) | worst window: completed −"
          + " offered | windows off the median by > 25 % | claim p50 (ms) | claim p99 (ms) |";
  static final String SUMMARY_RULE = "|---|---:|---:|---:|---:|---:|---:|---:|";

  private static final String QUEUE = "load";

  /** The harness's producer batch ({@code PRODUCER_BATCH_MAX}) and payload padding (~256 bytes). */
  private static final int HARNESS_BATCH = 128;

  private static final String PAD = "x".repeat(220);

  private final FencedQueue queue;
  private final Settings settings;
  private final AtomicLong enqueued = new AtomicLong();
  private final AtomicLong started = new AtomicLong();
  private final AtomicLong completed = new AtomicLong();
  private final AtomicLong enqueueFailures = new AtomicLong();
  private final LatencyRecorder[] latencies = {new LatencyRecorder()};
  private volatile boolean producing = true;
  private volatile FencedWorkers workers;

  /**
   * What one run does. {@code warmup}: seconds from the start whose windows the summary leaves out
   * (by default the first window). {@code harness}: the producer of hardbyte's harness (plain
   * {@code enqueueAll} batches of at most 128 jobs of about 256 bytes; the depth counted as jobs
   * not yet claimed) instead of keyed batches of up to 1,000 and the depth as jobs not yet started.
   * {@code virtualThreads} ({@code --virtual-threads}, {@code --platform-threads}): the handlers on
   * virtual threads; without either flag, the runtime's default ({@link
   * FencedWorkers#defaultVirtualThreads()}). {@code maxRunning} ({@code --max-running N}): the
   * queue's running limit, set before the run, and its valid leases counted ({@link ValidLeases});
   * 0, the default, sets none. {@code fallbackPollMs} ({@code --fallback-poll-ms}): the runtime's
   * {@code fallbackPoll}, how long its claimer waits after an empty claim unless an enqueue wakes
   * it; 0, the default, keeps the runtime's.
   */
  private record Settings(
      String schema,
      String shape,
      int rate,
      int depth,
      int threads,
      int seconds,
      int window,
      int warmup,
      int maintenanceSeconds,
      PostgresFencing.Engine engine,
      boolean harness,
      boolean virtualThreads,
      int priorities,
      int maxRunning,
      int fallbackPollMs) {

    static Settings parse(String[] args) {
      int window = Args.intArg(args, "--window", 5);
      String engine = Args.stringArg(args, "--engine", "update");
      return new Settings(
          Args.stringArg(args, "--schema", "bench_load"),
          Args.stringArg(args, "--shape", "rate"),
          Args.intArg(args, "--rate", 800),
          Args.intArg(args, "--depth", 4000),
          Args.intArg(args, "--threads", 32),
          Args.intArg(args, "--seconds", 90),
          window,
          Args.intArg(args, "--warmup", window),
          Args.intArg(args, "--maintenance-seconds", 60),
          switch (engine) {
            case "update" -> PostgresFencing.Engine.UPDATE_IN_PLACE;
            case "append" -> PostgresFencing.Engine.APPEND_ONLY;
            default ->
                throw new IllegalArgumentException(
                    "--engine must be update or append, but was '" + engine + "'");
          },
          List.of(args).contains("--harness"),
          List.of(args).contains("--virtual-threads")
              || (!List.of(args).contains("--platform-threads")
                  && FencedWorkers.defaultVirtualThreads()),
          Args.intArg(args, "--priorities", 0),
          Args.intArg(args, "--max-running", 0),
          Args.intArg(args, "--fallback-poll-ms", 0));
    }

    PostgresFencing.Builder fencing(HikariDataSource pool) {
      return PostgresFencing.builder(pool).schema(schema).engine(engine);
    }
  }

  private LoadRun(FencedQueue queue, Settings settings) {
    this.queue = queue;
    this.settings = settings;
  }

  /** Runs one load; see {@link LoadBenchmark} and {@link EngineBenchmark} for the arguments. */
  public static void main(String[] args) throws Exception {
    PostgresFixture.Database db = Args.database(args);
    Settings settings = Settings.parse(args);
    boolean fresh = List.of(args).contains("--fresh");
    if (fresh) {
      db.recreateSchema(settings.schema());
    }
    HikariConfig config = new HikariConfig();
    config.setDataSource(db.dataSource());
    config.setMaximumPoolSize(10);
    config.setPoolName("load");
    config.setTransactionIsolation("TRANSACTION_READ_COMMITTED");
    String initSql = Args.stringArg(args, "--init-sql", null);
    if (initSql != null) {
      config.setConnectionInitSql(initSql); // e.g. to force the planner's hand, for diagnosis
    }
    try (HikariDataSource pool = new HikariDataSource(config);
        Connection stats = db.dataSource().getConnection()) {
      FencedQueue queue = settings.fencing(pool).build().queue();
      LoadRun load = new LoadRun(queue, settings);
      System.out.print(BenchDatabase.machine(pool));
      System.out.println();
      if (settings.maxRunning() > 0) {
        queue.setLimits(QUEUE, QueueLimits.maxRunning(settings.maxRunning()));
        try (ValidLeases counted =
            ValidLeases.watch(
                db.dataSource(),
                settings.schema(),
                settings.engine(),
                QUEUE,
                settings.maxRunning())) {
          load.run(pool, stats);
        }
      } else {
        load.run(pool, stats);
      }
    }
  }

  private void run(HikariDataSource pool, Connection stats) throws Exception {
    LoadPgStats pg =
        new LoadPgStats(
            stats,
            settings.schema(),
            settings.engine() == PostgresFencing.Engine.APPEND_ONLY
                ? "fencing_append_%"
                : "fencing_job");
    int window = settings.window();
    workers =
        FencedWorkers.builder(queue)
            .receiver(AcceptingReceiver.INSTANCE)
            .owner("load-worker")
            .virtualThreads(settings.virtualThreads())
            .queue(
                QUEUE,
                (job, cancellation) -> {
                  long now = System.nanoTime();
                  String p = job.payload();
                  int end = p.indexOf(',');
                  long sent =
                      Long.parseLong(
                          p.substring(p.indexOf(':') + 1, end < 0 ? p.indexOf('}') : end).trim());
                  synchronized (latencies) {
                    latencies[0].record(now - sent);
                  }
                  started.incrementAndGet();
                  Thread.sleep(1);
                  return "{}";
                },
                q -> {
                  q.concurrency(settings.threads())
                      .batchSize(100)
                      .prefetch(400)
                      .leaseLength(Duration.ofSeconds(30));
                  if (settings.fallbackPollMs() > 0) {
                    q.fallbackPoll(Duration.ofMillis(settings.fallbackPollMs()));
                  }
                })
            .maintenance(
                settings.fencing(pool).install(false).build().maintenance().build(),
                Duration.ofSeconds(settings.maintenanceSeconds()))
            .onOutcome(
                o -> {
                  if (o instanceof WorkOutcome.Completed) {
                    completed.incrementAndGet();
                  }
                })
            .start();
    Thread producer = Thread.ofPlatform().name("producer").start(this::produce);
    System.out.println(
        "| t (s) | offered | completed | backlog | claim p50 (ms) | claim p99 (ms) | claim"
            + " statements | ms per claim / commit / enqueue | dead rows | analyzes |");
    System.out.println("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    LatencyRecorder measured = new LatencyRecorder();
    List<long[]> rows = new ArrayList<>();
    long begin = System.nanoTime();
    long lastEnqueued = 0;
    long lastCompleted = 0;
    LoadPgStats.Sample lastPg = pg.sample();
    long lastClaims = 0;
    for (int w = 1; w * window <= settings.seconds(); w++) {
      long due = begin + TimeUnit.SECONDS.toNanos((long) w * window);
      TimeUnit.NANOSECONDS.sleep(Math.max(0, due - System.nanoTime()));
      long e = enqueued.get();
      long backlog = e - started.get();
      long c = completed.get();
      LatencyRecorder l;
      synchronized (latencies) {
        l = latencies[0];
        latencies[0] = new LatencyRecorder();
      }
      LoadPgStats.Sample s = pg.sample();
      long claims = stats().claimStatements();
      if (w * window > settings.warmup()) {
        measured.addAll(l);
        rows.add(new long[] {e - lastEnqueued, c - lastCompleted});
      }
      System.out.printf(
          Locale.ROOT,
          "| %d | %d | %d | %d | %.1f | %.1f | %d | %s | %s | %s |%n",
          w * window,
          e - lastEnqueued,
          c - lastCompleted,
          backlog,
          l.percentileMillis(50),
          l.percentileMillis(99),
          claims - lastClaims,
          s.meanMillis(lastPg),
          s.deadRows(),
          s.analyzes());
      lastEnqueued = e;
      lastCompleted = c;
      lastPg = s;
      lastClaims = claims;
    }
    producing = false;
    producer.join();
    workers.close();
    QueueStats end = stats();
    System.out.printf(
        Locale.ROOT,
        "%nEvery claim's outcome: %,d claimed, %,d completed, %,d released (not started at the"
            + " stop), %,d fenced off, %,d failed, %,d abandoned.%n",
        end.claimed(),
        end.completed(),
        end.released(),
        end.fencedOff(),
        end.failed(),
        end.abandoned());
    System.out.printf(Locale.ROOT, "Enqueues that failed: %,d.%n", enqueueFailures.get());
    System.out.println(summary(rows, window, measured, settings.threads()));
  }

  private QueueStats stats() {
    return workers.stats().get(QUEUE);
  }

  private String summary(List<long[]> rows, int window, LatencyRecorder measured, int threads) {
    long[] done = rows.stream().mapToLong(r -> r[1]).sorted().toArray();
    long median = done.length == 0 ? 0 : done[done.length / 2];
    long worst = rows.stream().mapToLong(r -> r[1] - r[0]).min().orElse(0);
    long off = Arrays.stream(done).filter(d -> Math.abs(d - median) > median / 4).count();
    long offered = rows.stream().mapToLong(r -> r[0]).sum();
    return String.format(
        Locale.ROOT,
        "summary| %d | %,d | %,d | %s | %d of %d | %.1f | %.1f |",
        threads,
        rows.isEmpty() ? 0 : offered / ((long) rows.size() * window),
        median / window,
        settings.shape().equals("rate") ? String.format(Locale.ROOT, "%,d", worst) : "n/a",
        off,
        rows.size(),
        measured.percentileMillis(50),
        measured.percentileMillis(99));
  }

  /**
   * Enqueues batches: at the fixed rate, or topping the backlog up to the depth; keyed, or plain in
   * the harness's shape.
   */
  private void produce() {
    boolean rateShape = settings.shape().equals("rate");
    int batchMax = settings.harness() ? HARNESS_BATCH : 1_000;
    long begin = System.nanoTime();
    long sequence = 0;
    while (producing) {
      long want;
      if (rateShape) {
        long elapsed = System.nanoTime() - begin;
        want = Math.min(batchMax, elapsed * settings.rate() / 1_000_000_000L - enqueued.get());
      } else {
        long waiting = enqueued.get() - (settings.harness() ? stats().claimed() : started.get());
        want = Math.min(batchMax, settings.depth() - waiting);
      }
      if (want > 0) {
        long now = System.nanoTime();
        try {
          if (settings.harness()) {
            List<String> batch = new ArrayList<>((int) want);
            for (int i = 0; i < want; i++) {
              batch.add("{\"t\": " + now + ", \"pad\": \"" + PAD + "\"}");
            }
            if (settings.priorities() > 0) {
              queue.enqueueAll(QUEUE, batch, priority(sequence++));
            } else {
              queue.enqueueAll(QUEUE, batch);
            }
          } else {
            List<KeyedJob> batch = new ArrayList<>((int) want);
            for (int i = 0; i < want; i++) {
              batch.add(new KeyedJob("job-" + begin + "-" + sequence++, "{\"t\": " + now + "}"));
            }
            queue.enqueueKeyed(QUEUE, batch);
          }
          enqueued.addAndGet(want);
        } catch (RuntimeException e) {
          enqueueFailures.incrementAndGet();
          System.err.println("enqueue failed: " + e);
        }
      }
      if (settings.harness() && !rateShape && want >= batchMax) {
        continue; // the harness's producer tops up without a pause while the depth is short
      }
      try {
        Thread.sleep(rateShape ? 10 : 5);
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  /**
   * With {@code --priorities N}: the options of the {@code batch}-th batch, its priority one of N
   * levels spread over -5..5 in turn (3 levels: -5, 0, 5), so that most jobs wait in priority lanes
   * and some on the plain path.
   */
  private JobOptions priority(long batch) {
    int levels = settings.priorities();
    int level = (int) (batch % levels);
    return JobOptions.ofPriority(levels == 1 ? 5 : -5 + level * 10 / (levels - 1));
  }
}
