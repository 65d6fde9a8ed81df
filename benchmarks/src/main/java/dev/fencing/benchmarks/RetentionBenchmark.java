package dev.fencing.benchmarks;

import com.zaxxer.hikari.HikariDataSource;
import dev.fencing.FencedQueue;
import dev.fencing.Job;
import dev.fencing.Maintenance;
import dev.fencing.internal.Validate;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.postgres.PostgresMaintenance;
import dev.fencing.testkit.db.PostgresFixture;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;

/**
 * Claim cost as the job table ages: claim latency (p50, p99 of single {@code claim} calls) and
 * claim-to-complete throughput of a few worker threads, on a fresh table and on tables that have
 * processed 1M and 5M jobs, with and without {@link PostgresMaintenance} running, and again while
 * another connection holds a long REPEATABLE READ transaction. Each row also reports the table's
 * live rows, PostgreSQL's estimate of its dead tuples, and the sizes of the table (with indexes and
 * TOAST) and of the two partial indexes a claim reads.
 *
 * <p>Aging: pushing millions of jobs through the Java API would take hours, so the table is aged in
 * bulk SQL that leaves the traces real processing leaves. In chunks, three statements, each its own
 * transaction as a real claim and commit are: an INSERT of pending jobs on the measured queue, an
 * UPDATE to running that writes the columns a claim writes (status, owner, owners, epoch, attempts,
 * lease_expires_at, last_event, claim_token, updated_at), and an UPDATE to completed that writes
 * the columns {@code complete} writes (status, result, lease_expires_at, finished_at, last_event,
 * updated_at). Every version of every row thus enters the same indexes as in production and leaves
 * the same dead tuples and dead index entries behind. All but the newest tenth of the jobs of an
 * aging step are backdated to have finished a day ago, past the retention time, as months of jobs
 * are in production.
 *
 * <p>Variants, each in its own schema, aged and measured one after the other, the previous dropped:
 *
 * <ul>
 *   <li>{@code maintenance}: a thread calls {@link Maintenance#runRound()} in a loop (sleeping 1 s
 *       whenever a round found nothing more) while the table ages and while it is measured, with
 *       keepFinished 1 min; before its table is measured, the benchmark waits until a round found
 *       nothing more (the catch-up time is reported).
 *   <li>{@code autovacuum only}: no maintenance, so nothing is ever deleted; the table keeps the
 *       storage settings the schema gives it (fillfactor 90, autovacuum after a fixed count of dead
 *       versions).
 *   <li>{@code autovacuum only, default storage}: the same with those settings reset to
 *       PostgreSQL's defaults (autovacuum after 20 % of the table is dead), as before retention;
 *       the baseline that shows the problem.
 * </ul>
 *
 * <p>A last row measures the fresh table again, to show how far the machine drifted over the run.
 *
 * <p>Measuring a row: before the first, one unreported row on the fresh table warms the JVM. The
 * queue's pending backlog is topped up to {@code --backlog} jobs, then {@code --threads} workers
 * claim one job at a time and complete it, first for a warm-up, then for {@code --seconds}; every
 * claim call of the window is timed. For a {@code long transaction} row, another connection begins
 * a REPEATABLE READ transaction and reads from the job table before the warm-up, and ends it after
 * the window, so its snapshot holds back the removal of every tuple that dies meanwhile.
 *
 * <p>Prints a Markdown section; {@code --out FILE} also writes it. {@code --quick} is the smoke
 * form (20k and 100k jobs, 1 s windows). PostgreSQL: {@code FENCING_JDBC_URL} if set, else
 * embedded. Nothing here asserts a time.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar dev.fencing.benchmarks.RetentionBenchmark [--quick]
 *   [--sizes 1000000,5000000] [--seconds S] [--threads T] [--backlog N] [--chunk N]
 *   [--batch N] [--out FILE]
 * </pre>
 */
public final class RetentionBenchmark {

  /** The section's title. */
  static final String TITLE = "## Retention: claim cost as the table ages";

  private static final String SCHEMA_PREFIX = "bench_retention";
  private static final String QUEUE = "work";
  private static final Duration LEASE = Duration.ofMinutes(5);
  private static final Duration KEEP_FINISHED = Duration.ofMinutes(1);
  private static final Duration VACUUM_EVERY = Duration.ofSeconds(10);

  private RetentionBenchmark() {}

  /** The arguments. */
  record Settings(
      boolean quick,
      long[] sizes,
      int seconds,
      int warmupMillis,
      int threads,
      int backlog,
      int chunk,
      int batch,
      int catchUpSeconds,
      String out) {

    static Settings parse(String[] args) {
      boolean quick = List.of(args).contains("--quick");
      String sizes = Args.stringArg(args, "--sizes", quick ? "10000,40000" : "1000000,5000000");
      long[] parsed =
          java.util.Arrays.stream(sizes.split(","))
              .mapToLong(s -> Long.parseLong(s.trim()))
              .toArray();
      for (int i = 0; i < parsed.length; i++) {
        if (parsed[i] <= 0 || (i > 0 && parsed[i] <= parsed[i - 1])) {
          throw new IllegalArgumentException("--sizes must grow and be > 0, but was " + sizes);
        }
      }
      return new Settings(
          quick,
          parsed,
          Args.intArg(args, "--seconds", quick ? 1 : 10),
          quick ? 300 : 2_000,
          Args.intArg(args, "--threads", 2),
          Args.intArg(args, "--backlog", quick ? 5_000 : 50_000),
          Args.intArg(args, "--chunk", quick ? 10_000 : 50_000),
          Args.intArg(args, "--batch", 1_000),
          quick ? 60 : 600,
          Args.stringArg(args, "--out", null));
    }
  }

  /** The aged tables. */
  enum Variant {
    MAINTENANCE("_maint", "maintenance"),
    AUTOVACUUM("_plain", "autovacuum only"),
    DEFAULT_STORAGE("_default", "autovacuum only, default storage");

    final String suffix;
    final String label;

    Variant(String suffix, String label) {
      this.suffix = suffix;
      this.label = label;
    }
  }

  /** One measured row. */
  record Row(
      String table,
      String variant,
      boolean longTransaction,
      LatencyRecorder latencies,
      long completed,
      long emptyClaims,
      double seconds,
      Sizes sizes) {

    double p50() {
      return latencies.percentileMillis(50);
    }

    double p99() {
      return latencies.percentileMillis(99);
    }

    double jobsPerSecond() {
      return completed / seconds;
    }
  }

  /** The table's rows and storage after a row's window. */
  record Sizes(long liveRows, long deadTuples, long tableBytes, long pendingIx, long runningIx) {}

  /** Runs the benchmark; see the class comment for the arguments. */
  public static void main(String[] args) throws Exception {
    Settings settings = Settings.parse(args);
    PostgresFixture.Database db = BenchDatabase.database();
    List<Row> rows = new ArrayList<>();
    List<String> notes = new ArrayList<>();
    String machine;
    String loadAtStart = loadAverage();
    try (HikariDataSource pool = BenchDatabase.pool(db, settings.threads() + 6)) {
      machine = BenchDatabase.machine(pool);

      String fresh = SCHEMA_PREFIX + "_fresh";
      BenchDatabase.freshQueueSchema(db, fresh);
      topUp(pool, fresh, settings.backlog());
      checkpoint(pool, notes);
      measure(pool, fresh, "warm-up", "-", false, settings); // the JVM's, not reported
      topUp(pool, fresh, settings.backlog());
      rows.add(measure(pool, fresh, "fresh", "-", false, settings));
      rows.add(measure(pool, fresh, "fresh", "-", true, settings));
      db.dropSchema(fresh);

      for (Variant v : Variant.values()) {
        boolean maintained = v == Variant.MAINTENANCE;
        String schema = SCHEMA_PREFIX + v.suffix;
        String variant = v.label;
        BenchDatabase.freshQueueSchema(db, schema);
        if (v == Variant.DEFAULT_STORAGE) {
          resetStorageSettings(pool, schema);
        }
        MaintenanceLoop loop = null;
        if (maintained) {
          loop =
              new MaintenanceLoop(
                  PostgresFencing.builder(pool)
                      .schema(schema)
                      .install(false)
                      .build()
                      .maintenance()
                      .keepFinished(KEEP_FINISHED)
                      .archive(false)
                      .batchSize(settings.batch())
                      .vacuumEvery(VACUUM_EVERY)
                      .build());
        }
        try {
          long processed = 0;
          for (long size : settings.sizes()) {
            long started = System.nanoTime();
            age(pool, schema, processed, size, settings.chunk());
            double aging = seconds(System.nanoTime() - started);
            String note =
                String.format(
                    Locale.ROOT,
                    "%s: aged from %,d to %,d processed jobs in %.1f s",
                    variant,
                    processed,
                    size,
                    aging);
            if (loop != null) {
              long waitFrom = System.nanoTime();
              boolean caughtUp = loop.awaitCaughtUp(waitFrom, settings.catchUpSeconds());
              note +=
                  String.format(
                      Locale.ROOT,
                      "; maintenance %s %.1f s later (%,d jobs removed so far, %d failed rounds)",
                      caughtUp ? "caught up" : "had NOT caught up",
                      seconds(System.nanoTime() - waitFrom),
                      loop.removed.get(),
                      loop.failures.get());
            }
            notes.add(note);
            System.err.println("retention benchmark: " + note);
            processed = size;
            checkpoint(pool, notes);
            String table = String.format(Locale.ROOT, "after %,d", size);
            topUp(pool, schema, settings.backlog());
            rows.add(measure(pool, schema, table, variant, false, settings));
            rows.add(measure(pool, schema, table, variant, true, settings));
          }
        } finally {
          if (loop != null) {
            loop.close();
            if (loop.lastFailure != null) {
              notes.add("maintenance's last failure: " + loop.lastFailure);
            }
          }
        }
        db.dropSchema(schema);
      }

      // the same fresh table again, to show how much the machine drifted over the run
      BenchDatabase.freshQueueSchema(db, fresh);
      topUp(pool, fresh, settings.backlog());
      checkpoint(pool, notes);
      rows.add(measure(pool, fresh, "fresh, at the end", "-", false, settings));
      db.dropSchema(fresh);
    }
    if (loadAtStart != null) {
      notes.add(
          "load average (1, 5, 15 min) at the start: "
              + loadAtStart
              + ", at the end: "
              + loadAverage());
    }
    String report = report(settings, args, machine, rows, notes);
    Args.printAndWrite(report, settings.out());
  }

  /**
   * Ages {@code schema}'s job table from {@code from} to {@code to} processed jobs, {@code chunk}
   * at a time; the newest tenth of the step's jobs finish now, the others a day ago.
   */
  static void age(DataSource ds, String schema, long from, long to, int chunk) throws SQLException {
    String table = "\"" + Validate.identifier("schema", schema) + "\".fencing_job";
    long recentFrom = to - (to - from) / 10;
    try (Connection c = ds.getConnection();
        PreparedStatement insert =
            c.prepareStatement(
                "with added as (insert into "
                    + table
                    + " (queue, payload) select ?, '{}'::jsonb from generate_series(1, ?)"
                    + " returning id) select min(id), max(id) from added");
        PreparedStatement claim =
            c.prepareStatement(
                "update "
                    + table
                    + " set status = 'running', owner = ?,"
                    + " owners = (owners || ?::varchar)[greatest(cardinality(owners) + 2 - 16, 1):],"
                    + " epoch = epoch + 1, attempts = attempts + 1,"
                    + " lease_expires_at = now() + interval '5 minutes', last_event = 'claimed',"
                    + " claim_token = gen_random_uuid(), updated_at = now()"
                    + " where id between ? and ? and status = 'pending'");
        PreparedStatement complete =
            c.prepareStatement(
                "update "
                    + table
                    + " set status = 'completed', result = '{}'::jsonb, lease_expires_at = null,"
                    + " finished_at = case when id >= ? then now() else now() - interval '1 day' end,"
                    + " last_event = 'completed',"
                    + " updated_at = now()"
                    + " where id between ? and ? and status = 'running'")) {
      c.setAutoCommit(true);
      for (long done = from; done < to; ) {
        int n = (int) Math.min(chunk, to - done);
        long first;
        long last;
        insert.setString(1, QUEUE);
        insert.setInt(2, n);
        try (ResultSet r = insert.executeQuery()) {
          r.next();
          first = r.getLong(1);
          last = r.getLong(2);
        }
        claim.setString(1, "aging");
        claim.setString(2, "aging");
        claim.setLong(3, first);
        claim.setLong(4, last);
        claim.executeUpdate();
        // ids of one insert are consecutive here: nothing else inserts while the table ages
        complete.setLong(1, first + Math.max(0, recentFrom - done));
        complete.setLong(2, first);
        complete.setLong(3, last);
        complete.executeUpdate();
        done += n;
      }
    }
  }

  /**
   * Gives the job table PostgreSQL's default fillfactor and autovacuum thresholds, as an
   * installation had before retention set its own.
   */
  private static void resetStorageSettings(DataSource ds, String schema) throws SQLException {
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement()) {
      s.execute(
          "alter table \""
              + Validate.identifier("schema", schema)
              + "\".fencing_job reset (fillfactor, autovacuum_vacuum_scale_factor,"
              + " autovacuum_vacuum_threshold, autovacuum_analyze_scale_factor,"
              + " autovacuum_analyze_threshold)");
    }
  }

  /** Adds pending jobs to the measured queue until it has {@code backlog}. */
  private static void topUp(DataSource ds, String schema, int backlog) {
    long pending = BenchDatabase.pending(ds, schema, QUEUE);
    if (pending < backlog) {
      BenchDatabase.seed(ds, schema, QUEUE, (int) (backlog - pending));
    }
  }

  /** Measures one row: a warm-up, then the window, workers claiming and completing one by one. */
  private static Row measure(
      DataSource ds,
      String schema,
      String table,
      String variant,
      boolean longTransaction,
      Settings settings)
      throws Exception {
    FencedQueue queue = PostgresFencing.builder(ds).schema(schema).install(false).build().queue();
    Connection holder = null;
    if (longTransaction) {
      holder = ds.getConnection();
      holder.setAutoCommit(false);
      holder.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
      try (Statement s = holder.createStatement();
          ResultSet r =
              s.executeQuery(
                  "select count(*) from (select 1 from \""
                      + Validate.identifier("schema", schema)
                      + "\".fencing_job limit 1) one")) {
        r.next(); // the snapshot is taken and held until the rollback below
      }
    }
    AtomicInteger phase = new AtomicInteger(); // 0 warm-up, 1 measured, 2 stop
    AtomicLong completed = new AtomicLong();
    AtomicLong empty = new AtomicLong();
    List<LatencyRecorder> recorders = new ArrayList<>();
    List<Thread> workers = new ArrayList<>();
    List<Throwable> errors = new java.util.concurrent.CopyOnWriteArrayList<>();
    double window;
    try {
      for (int t = 0; t < settings.threads(); t++) {
        LatencyRecorder recorder = new LatencyRecorder();
        recorders.add(recorder);
        String owner = "bench-retention-" + t;
        workers.add(
            Thread.ofPlatform()
                .name(owner)
                .start(
                    () -> {
                      try {
                        int p;
                        while ((p = phase.get()) < 2) {
                          long start = System.nanoTime();
                          Optional<Job> job = queue.claim(QUEUE, owner, LEASE);
                          long took = System.nanoTime() - start;
                          if (job.isEmpty()) {
                            if (p == 1) {
                              empty.incrementAndGet();
                            }
                            continue;
                          }
                          queue.complete(job.get().lease(), "{}");
                          if (p == 1 && phase.get() == 1) {
                            recorder.record(took);
                            completed.incrementAndGet();
                          }
                        }
                      } catch (Throwable e) {
                        errors.add(e);
                      }
                    }));
      }
      Thread.sleep(settings.warmupMillis());
      phase.set(1);
      long start = System.nanoTime();
      Thread.sleep(TimeUnit.SECONDS.toMillis(settings.seconds()));
      phase.set(2);
      window = seconds(System.nanoTime() - start);
      for (Thread w : workers) {
        w.join();
      }
    } finally {
      phase.set(2);
      if (holder != null) {
        holder.rollback();
        holder.close();
      }
    }
    if (!errors.isEmpty()) {
      throw new IllegalStateException(
          "a worker failed on " + schema + ": " + errors.getFirst(), errors.getFirst());
    }
    LatencyRecorder all = new LatencyRecorder();
    recorders.forEach(all::addAll);
    return new Row(
        table,
        variant,
        longTransaction,
        all,
        completed.get(),
        empty.get(),
        window,
        sizes(ds, schema));
  }

  private static Sizes sizes(DataSource ds, String schema) throws SQLException {
    String s = Validate.identifier("schema", schema);
    try (Connection c = ds.getConnection();
        Statement st = c.createStatement()) {
      // make the dead-tuple estimate current
      st.execute("select pg_stat_clear_snapshot()");
      try (ResultSet r =
          st.executeQuery(
              "select (select count(*) from \""
                  + s
                  + "\".fencing_job),"
                  + " (select n_dead_tup from pg_stat_user_tables"
                  + " where relid = '\""
                  + s
                  + "\".fencing_job'::regclass),"
                  + " pg_total_relation_size('\""
                  + s
                  + "\".fencing_job'),"
                  + " pg_relation_size('\""
                  + s
                  + "\".fencing_job_pending_ix'),"
                  + " pg_relation_size('\""
                  + s
                  + "\".fencing_job_running_ix')")) {
        r.next();
        return new Sizes(r.getLong(1), r.getLong(2), r.getLong(3), r.getLong(4), r.getLong(5));
      }
    }
  }

  /** The Markdown section. */
  static String report(
      Settings settings, String[] args, String machine, List<Row> rows, List<String> notes) {
    StringBuilder s = new StringBuilder();
    s.append(TITLE).append("\n\n");
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
                + " start. p50/p99 are of single `claim` calls; jobs/s is claim-to-complete. Aged"
                + " tables were aged in bulk SQL, chunks of %,d jobs, each chunk inserted, claimed"
                + " and completed in three transactions; all but the newest tenth of each aging"
                + " step finished a day ago. `maintenance`: PostgresMaintenance rounds in a loop"
                + " (keepFinished 1 min, batch %,d, VACUUM every 10 s) during aging and"
                + " measurement. `autovacuum only`: no maintenance, the schema's storage settings"
                + " (fillfactor 90, autovacuum after 10,000 dead versions); `, default storage`:"
                + " those reset to PostgreSQL's defaults (autovacuum after 20 %% dead), as before"
                + " retention. `long transaction`: another"
                + " connection holds a REPEATABLE READ snapshot, taken by a read of the job table,"
                + " over the warm-up and the window. Rows, dead tuples (PostgreSQL's estimate) and"
                + " sizes are taken after the window; table MB includes indexes and TOAST. p50 vs"
                + " fresh compares with the first row. A CHECKPOINT runs after each aging step,"
                + " before its windows.\n\n",
            settings.threads(),
            LEASE.toMinutes(),
            settings.seconds(),
            settings.warmupMillis() / 1000.0,
            settings.backlog(),
            settings.chunk(),
            settings.batch()));
    s.append(
        "| table | variant | long transaction | claim p50 ms | claim p99 ms | jobs/s | p50 vs fresh"
            + " | live rows | dead tuples | table MB | pending_ix MB | running_ix MB |\n");
    s.append("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    double freshP50 = rows.getFirst().p50();
    for (Row r : rows) {
      s.append(
          String.format(
              Locale.ROOT,
              "| %s | %s | %s | %.2f | %.2f | %,.0f | %.2fx | %,d | %,d | %.1f | %.2f | %.2f |%n",
              r.table(),
              r.variant(),
              r.longTransaction() ? "yes" : "no",
              r.p50(),
              r.p99(),
              r.jobsPerSecond(),
              r.p50() / freshP50,
              r.sizes().liveRows(),
              r.sizes().deadTuples(),
              r.sizes().tableBytes() / 1e6,
              r.sizes().pendingIx() / 1e6,
              r.sizes().runningIx() / 1e6));
    }
    s.append('\n');
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
    Row last = null;
    for (Row r : rows) {
      if (r.variant().equals("maintenance") && !r.longTransaction()) {
        last = r;
      }
    }
    if (last != null) {
      s.append(
          String.format(
              Locale.ROOT,
              "%nWith maintenance, %s processed jobs: claim p50 %.2fx fresh, p99 %.2fx fresh"
                  + " (target: p50 within 1.5x).%n",
              last.table().replace("after ", ""),
              last.p50() / freshP50,
              last.p99() / rows.getFirst().p99()));
    }
    return s.toString();
  }

  /** Runs maintenance rounds on its own thread until closed. */
  private static final class MaintenanceLoop implements AutoCloseable {

    final AtomicLong removed = new AtomicLong();
    final AtomicLong failures = new AtomicLong();
    volatile String lastFailure;
    private final Thread thread;
    private volatile boolean stop;

    /** When the last round that found nothing more had started (System.nanoTime). */
    private volatile long idleRoundStarted;

    MaintenanceLoop(Maintenance maintenance) {
      // long before any wait; nanoTime values compare only by difference
      idleRoundStarted = System.nanoTime() - TimeUnit.DAYS.toNanos(1);
      thread =
          Thread.ofPlatform()
              .name("bench-retention-maintenance")
              .start(
                  () -> {
                    while (!stop) {
                      long started = System.nanoTime();
                      boolean idle;
                      try {
                        Maintenance.Report report = maintenance.runRound();
                        removed.addAndGet(report.jobsRemoved());
                        idle = !report.moreLeft();
                      } catch (RuntimeException e) {
                        failures.incrementAndGet();
                        lastFailure = e.toString();
                        idle = true;
                      }
                      if (idle) {
                        idleRoundStarted = started;
                        sleepQuietly(1_000);
                      }
                    }
                  });
    }

    /** Waits until a round started after {@code since} found nothing more; false on timeout. */
    boolean awaitCaughtUp(long since, int timeoutSeconds) {
      long deadline = since + TimeUnit.SECONDS.toNanos(timeoutSeconds);
      while (idleRoundStarted - since < 0) {
        if (System.nanoTime() - deadline > 0) {
          return false;
        }
        sleepQuietly(100);
      }
      return true;
    }

    @Override
    public void close() throws InterruptedException {
      stop = true;
      thread.interrupt();
      thread.join();
    }

    private void sleepQuietly(long millis) {
      try {
        Thread.sleep(millis);
      } catch (InterruptedException e) {
        // close() interrupts a sleep; the loop checks stop
      }
    }
  }

  /**
   * Runs a CHECKPOINT, so that the dirty pages of the aging are written before a window rather than
   * during it; a server that does not allow it is noted once.
   */
  private static void checkpoint(DataSource ds, List<String> notes) {
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement()) {
      s.execute("checkpoint");
    } catch (SQLException e) {
      String note = "CHECKPOINT before the windows was refused: " + e.getMessage();
      if (!notes.contains(note)) {
        notes.add(note);
      }
    }
  }

  /** The first three fields of /proc/loadavg, or null where there is none. */
  private static String loadAverage() {
    try {
      String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split(" ");
      return f[0] + ", " + f[1] + ", " + f[2];
    } catch (java.io.IOException | RuntimeException e) {
      return null;
    }
  }

  private static double seconds(long nanos) {
    return nanos / 1e9;
  }
}
