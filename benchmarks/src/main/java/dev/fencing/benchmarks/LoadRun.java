package dev.fencing.benchmarks;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.fencing.FencedQueue;
import dev.fencing.KeyedJob;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.runtime.FencedRuntime;
import dev.fencing.runtime.WorkOutcome;
import dev.fencing.testkit.db.PostgresFixture;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
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

  private final FencedQueue queue;
  private final String shape;
  private final int rate;
  private final int depth;
  private final AtomicLong enqueued = new AtomicLong();
  private final AtomicLong started = new AtomicLong();
  private final AtomicLong completed = new AtomicLong();
  private final LatencyRecorder[] latencies = {new LatencyRecorder()};
  private volatile boolean producing = true;

  private LoadRun(FencedQueue queue, String shape, int rate, int depth) {
    this.queue = queue;
    this.shape = shape;
    this.rate = rate;
    this.depth = depth;
  }

  /** Runs one load; see {@link LoadBenchmark} for what the arguments mean. */
  public static void main(String[] args) throws Exception {
    PostgresFixture.Database db =
        new PostgresFixture.Database(
            Args.stringArg(args, "--url", null),
            Args.stringArg(args, "--user", ""),
            Args.stringArg(args, "--password", ""),
            "url");
    String schema = Args.stringArg(args, "--schema", "bench_load");
    String shape = Args.stringArg(args, "--shape", "rate");
    int threads = Args.intArg(args, "--threads", 32);
    int seconds = Args.intArg(args, "--seconds", 90);
    int window = Args.intArg(args, "--window", 5);
    boolean fresh = List.of(args).contains("--fresh");
    if (fresh) {
      db.recreateSchema(schema);
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
      FencedQueue queue = PostgresFencing.builder(pool).schema(schema).build().queue();
      LoadRun load =
          new LoadRun(
              queue, shape, Args.intArg(args, "--rate", 800), Args.intArg(args, "--depth", 4000));
      System.out.print(BenchDatabase.machine(pool));
      System.out.println();
      load.run(
          pool,
          stats,
          schema,
          threads,
          seconds,
          window,
          Args.intArg(args, "--maintenance-seconds", 60));
    }
  }

  private void run(
      HikariDataSource pool,
      Connection stats,
      String schema,
      int threads,
      int seconds,
      int window,
      int maintenanceSeconds)
      throws Exception {
    PgStats pg = new PgStats(stats, schema);
    FencedRuntime runtime =
        FencedRuntime.builder(queue, AcceptingReceiver.INSTANCE)
            .queue(QUEUE)
            .owner("load-worker")
            .concurrency(threads)
            .batchSize(100)
            .prefetch(400)
            .leaseLength(Duration.ofSeconds(30))
            .maintenance(
                PostgresFencing.builder(pool)
                    .schema(schema)
                    .install(false)
                    .build()
                    .maintenance()
                    .build(),
                Duration.ofSeconds(maintenanceSeconds))
            .handler(
                (job, cancellation) -> {
                  long now = System.nanoTime();
                  String p = job.payload();
                  long sent =
                      Long.parseLong(p.substring(p.indexOf(':') + 1, p.indexOf('}')).trim());
                  synchronized (latencies) {
                    latencies[0].record(now - sent);
                  }
                  started.incrementAndGet();
                  Thread.sleep(1);
                  return "{}";
                })
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
    PgStats.Sample lastPg = pg.sample();
    long lastClaims = 0;
    for (int w = 1; w * window <= seconds; w++) {
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
      PgStats.Sample s = pg.sample();
      long claims = runtime.stats().claimStatements();
      if (w > 1) {
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
    runtime.close();
    FencedRuntime.Stats end = runtime.stats();
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
    System.out.println(summary(rows, window, measured, threads));
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
        shape.equals("rate") ? String.format(Locale.ROOT, "%,d", worst) : "n/a",
        off,
        rows.size(),
        measured.percentileMillis(50),
        measured.percentileMillis(99));
  }

  /** Enqueues keyed batches: at the fixed rate, or topping the backlog up to the depth. */
  private void produce() {
    long begin = System.nanoTime();
    long sequence = 0;
    while (producing) {
      long want;
      if (shape.equals("rate")) {
        long elapsed = System.nanoTime() - begin;
        want = Math.min(1_000, elapsed * rate / 1_000_000_000L - enqueued.get());
      } else {
        want = Math.min(1_000, depth - (enqueued.get() - started.get()));
      }
      if (want > 0) {
        List<KeyedJob> batch = new ArrayList<>((int) want);
        long now = System.nanoTime();
        for (int i = 0; i < want; i++) {
          batch.add(new KeyedJob("job-" + begin + "-" + sequence++, "{\"t\": " + now + "}"));
        }
        try {
          queue.enqueueKeyed(QUEUE, batch);
          enqueued.addAndGet(want);
        } catch (RuntimeException e) {
          System.err.println("enqueue failed: " + e);
        }
      }
      try {
        Thread.sleep(shape.equals("rate") ? 10 : 5);
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  /**
   * Executions and times of the claim, the batched commit and the enqueue from pg_stat_statements
   * (n/a where the extension is not installed), and the table's dead rows and analyzes. Reads the
   * counters without the statements' texts, which would cost the server hundreds of milliseconds a
   * window; a text is read once per statement, the first time its id shows up.
   */
  private static final class PgStats {
    /** What the texts of the claim, the batched commit and the enqueue contain. */
    private static final String[] KINDS = {
      "\"expired\"", "cast(\"v_result\" as jsonb)", "fencing_job\" (\"queue\""
    };

    private final Connection connection;
    private final String schema;
    private final Map<Long, Integer> kindOf = new HashMap<>();
    private boolean statements = true;

    PgStats(Connection connection, String schema) {
      this.connection = connection;
      this.schema = schema;
    }

    /** Per kind of statement, its calls and milliseconds so far; the table's state. */
    record Sample(long[] calls, double[] millis, long deadRows, long analyzes) {
      /** Mean milliseconds per call of each kind since {@code before}, joined by " / ". */
      String meanMillis(Sample before) {
        StringBuilder means = new StringBuilder();
        for (int k = 0; k < KINDS.length; k++) {
          long n = calls[k] - before.calls[k];
          means.append(k == 0 ? "" : " / ");
          means.append(
              calls[k] < 0 || n <= 0 || millis[k] < before.millis[k]
                  ? "n/a" // none, or counters evicted by pg_stat_statements.max meanwhile
                  : String.format(Locale.ROOT, "%.2f", (millis[k] - before.millis[k]) / n));
        }
        return means.toString();
      }
    }

    Sample sample() throws SQLException {
      long[] calls = new long[KINDS.length];
      double[] millis = new double[KINDS.length];
      Arrays.fill(calls, -1);
      if (statements) {
        try {
          Arrays.fill(calls, 0);
          counters(calls, millis);
        } catch (SQLException e) {
          statements = false; // not installed here: the columns show n/a
          Arrays.fill(calls, -1);
        }
      }
      try (PreparedStatement s =
          connection.prepareStatement(
              "select n_dead_tup, analyze_count + autoanalyze_count from pg_stat_user_tables"
                  + " where schemaname = ? and relname = 'fencing_job'")) {
        s.setString(1, schema);
        try (ResultSet r = s.executeQuery()) {
          return r.next()
              ? new Sample(calls, millis, r.getLong(1), r.getLong(2))
              : new Sample(calls, millis, -1, -1);
        }
      }
    }

    private void counters(long[] calls, double[] millis) throws SQLException {
      List<long[]> rows = new ArrayList<>();
      List<Double> times = new ArrayList<>();
      try (PreparedStatement s =
              connection.prepareStatement(
                  "select queryid, calls, total_exec_time from pg_stat_statements(false)"
                      + " where dbid = (select oid from pg_database where datname ="
                      + " current_database()) and queryid is not null");
          ResultSet r = s.executeQuery()) {
        while (r.next()) {
          rows.add(new long[] {r.getLong(1), r.getLong(2)});
          times.add(r.getDouble(3));
        }
      }
      List<Long> unknown = new ArrayList<>();
      for (long[] row : rows) {
        if (!kindOf.containsKey(row[0])) {
          unknown.add(row[0]);
        }
      }
      if (!unknown.isEmpty()) {
        classify(unknown);
      }
      for (int i = 0; i < rows.size(); i++) {
        int kind = kindOf.getOrDefault(rows.get(i)[0], -1);
        if (kind >= 0) {
          calls[kind] += rows.get(i)[1];
          millis[kind] += times.get(i);
        }
      }
    }

    private void classify(List<Long> ids) throws SQLException {
      try (PreparedStatement s =
          connection.prepareStatement(
              "select queryid, query from pg_stat_statements where queryid = any(?)")) {
        s.setArray(1, connection.createArrayOf("bigint", ids.toArray()));
        try (ResultSet r = s.executeQuery()) {
          while (r.next()) {
            kindOf.put(r.getLong(1), kind(r.getString(2)));
          }
        }
      }
      for (long id : ids) {
        kindOf.putIfAbsent(id, -1);
      }
    }

    private int kind(String query) {
      for (int k = 0; k < KINDS.length; k++) {
        if (query.contains("\"" + schema + "\"") && query.contains(KINDS[k])) {
          return k;
        }
      }
      return -1;
    }
  }
}
