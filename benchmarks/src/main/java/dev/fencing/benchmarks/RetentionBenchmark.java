package dev.fencing.benchmarks;

import com.zaxxer.hikari.HikariDataSource;
import dev.fencing.FencedQueue;
import dev.fencing.Job;
import dev.fencing.Maintenance;
import dev.fencing.benchmarks.RetentionReport.Row;
import dev.fencing.internal.Validate;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.postgres.PostgresMaintenance;
import dev.fencing.testkit.db.PostgresFixture;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
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
 * Claim cost as the tables age: claim latency (p50, p99 of single {@code claim} calls) and
 * claim-to-complete throughput of a few worker threads, on fresh tables and on tables that have
 * processed 1M and 5M jobs, with and without {@link PostgresMaintenance} running, and again while
 * another connection holds a long REPEATABLE READ transaction. Each row also reports the tables'
 * rows, PostgreSQL's estimate of their dead tuples, and their sizes.
 *
 * <p>{@code --engine update} (the default) measures today's engine ({@link UpdateInPlaceTables}),
 * {@code --engine append} the append-only one ({@link AppendOnlyTables}); each says how it ages its
 * tables. Aging: pushing millions of jobs through the Java API would take hours, so the tables are
 * aged in bulk SQL that leaves the traces real processing leaves. All but the newest tenth of the
 * jobs of an aging step are backdated to have finished a day ago, past the retention time, as
 * months of jobs are in production.
 *
 * <p>Variants, each in its own schema, aged and measured one after the other, the previous dropped:
 *
 * <ul>
 *   <li>{@code maintenance}: a thread calls {@link Maintenance#runRound()} in a loop (sleeping 1 s
 *       whenever a round found nothing more) while the tables age and while they are measured, with
 *       keepFinished 1 min and a VACUUM every 10 s; before its tables are measured, the benchmark
 *       waits until a round found nothing more (the catch-up time is reported).
 *   <li>{@code maintenance, no VACUUM} (append-only): the same rounds without their VACUUM, and
 *       autovacuum turned off on the engine's tables: nothing ever vacuums them.
 *   <li>{@code autovacuum only}: no maintenance, so nothing is ever deleted; the tables keep the
 *       storage settings the schema gives them.
 *   <li>{@code autovacuum only, default storage} (today's engine): the same with the job table's
 *       settings reset to PostgreSQL's defaults (autovacuum after 20 % of the table is dead), as
 *       before retention; the baseline that shows the problem.
 * </ul>
 *
 * <p>A last row measures the fresh tables again, to show how far the machine drifted over the run.
 *
 * <p>Measuring a row: before the first, one unreported row on the fresh tables warms the JVM. The
 * queue's backlog is topped up to {@code --backlog} jobs, then {@code --threads} workers claim one
 * job at a time and complete it, first for a warm-up, then for {@code --seconds}; every claim call
 * of the window is timed. A {@code drained} row drains the queue first, and each worker enqueues
 * one job before each claim, so claims find next to nothing waiting. For a {@code long transaction}
 * row, another connection begins a REPEATABLE READ transaction and reads from the job table before
 * the warm-up, and ends it after the window, so its snapshot holds back the removal of every tuple
 * that dies meanwhile.
 *
 * <p>Prints a Markdown section; {@code --out FILE} also writes it. {@code --quick} is the smoke
 * form (10k and 40k jobs, 1 s windows). PostgreSQL: {@code FENCING_JDBC_URL} if set, else embedded.
 * Nothing here asserts a time.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar dev.fencing.benchmarks.RetentionBenchmark [--quick]
 *   [--engine update|append] [--sizes 1000000,5000000] [--seconds S] [--threads T] [--backlog N]
 *   [--chunk N] [--batch N] [--claim-batch N] [--slice N] [--out FILE]
 * </pre>
 */
public final class RetentionBenchmark {

  /** The section's title for today's engine. */
  static final String TITLE = new UpdateInPlaceTables().names().title();

  private static final String QUEUE = "work";
  private static final Duration LEASE = Duration.ofMinutes(5);
  private static final Duration KEEP_FINISHED = Duration.ofMinutes(1);
  private static final Duration VACUUM_EVERY = Duration.ofSeconds(10);

  private RetentionBenchmark() {}

  /** Runs the benchmark; see the class comment for the arguments. */
  public static void main(String[] args) throws Exception {
    RetentionSettings settings = RetentionSettings.parse(args);
    AgedTables tables =
        settings.append() ? new AppendOnlyTables(settings) : new UpdateInPlaceTables();
    PostgresFencing.Engine engine =
        settings.append()
            ? PostgresFencing.Engine.APPEND_ONLY
            : PostgresFencing.Engine.UPDATE_IN_PLACE;
    PostgresFixture.Database db = BenchDatabase.database();
    List<Row> rows = new ArrayList<>();
    List<String> notes = new ArrayList<>();
    String machine;
    String loadAtStart = loadAverage();
    try (HikariDataSource pool = BenchDatabase.pool(db, settings.threads() + 6)) {
      machine = BenchDatabase.machine(pool);

      String fresh = tables.names().schemaPrefix() + "_fresh";
      BenchDatabase.freshQueueSchema(db, fresh, engine);
      tables.topUp(pool, fresh, QUEUE, settings.backlog());
      checkpoint(pool, notes);
      measure(
          pool, tables, fresh, "warm-up", "-", false, false, settings); // the JVM's, not reported
      tables.topUp(pool, fresh, QUEUE, settings.backlog());
      measureAll(pool, tables, fresh, "fresh", "-", settings, rows);
      db.dropSchema(fresh);

      for (RetentionVariant v : tables.names().variants()) {
        String schema = tables.names().schemaPrefix() + v.suffix;
        String variant = v.label;
        BenchDatabase.freshQueueSchema(db, schema, engine);
        tables.prepare(pool, schema, v);
        MaintenanceLoop loop = null;
        if (v.maintained) {
          loop =
              new MaintenanceLoop(
                  tables
                      .builder(pool, schema)
                      .install(false)
                      .build()
                      .maintenance()
                      .keepFinished(KEEP_FINISHED)
                      .archive(false)
                      .batchSize(settings.batch())
                      .vacuumEvery(v.vacuumed ? VACUUM_EVERY : Duration.ZERO)
                      .build());
        }
        try {
          long processed = 0;
          for (long size : settings.sizes()) {
            long started = System.nanoTime();
            tables.age(pool, schema, QUEUE, processed, size, settings.chunk());
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
            tables.topUp(pool, schema, QUEUE, settings.backlog());
            measureAll(pool, tables, schema, table, variant, settings, rows);
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

      // the same fresh tables again, to show how much the machine drifted over the run
      BenchDatabase.freshQueueSchema(db, fresh, engine);
      tables.topUp(pool, fresh, QUEUE, settings.backlog());
      checkpoint(pool, notes);
      add(rows, measure(pool, tables, fresh, "fresh, at the end", "-", false, false, settings));
      db.dropSchema(fresh);
    }
    if (loadAtStart != null) {
      notes.add(
          "load average (1, 5, 15 min) at the start: "
              + loadAtStart
              + ", at the end: "
              + loadAverage());
    }
    String report = RetentionReport.report(settings, LEASE, tables, args, machine, rows, notes);
    Args.printAndWrite(report, settings.out());
  }

  /** Adds {@code row} to {@code rows}, and prints it (an interrupted run still shows its rows). */
  private static void add(List<Row> rows, Row row) {
    rows.add(row);
    System.err.println(
        "retention benchmark: " + row.line(RetentionReport.fresh(rows, row.drained())));
  }

  /** The rows of one table: with a backlog, with it and a long transaction, drained. */
  private static void measureAll(
      DataSource ds,
      AgedTables tables,
      String schema,
      String table,
      String variant,
      RetentionSettings settings,
      List<Row> rows)
      throws Exception {
    add(rows, measure(ds, tables, schema, table, variant, false, false, settings));
    add(rows, measure(ds, tables, schema, table, variant, true, false, settings));
    add(rows, measure(ds, tables, schema, table, variant, false, true, settings));
  }

  /**
   * Measures one row: a warm-up, then the window, workers claiming and completing one by one;
   * {@code drained}: the queue drained first, and each worker enqueues one job before each claim,
   * so that claims find (next to) nothing waiting, as on a queue that keeps up.
   */
  private static Row measure(
      DataSource ds,
      AgedTables tables,
      String schema,
      String table,
      String variant,
      boolean longTransaction,
      boolean drained,
      RetentionSettings settings)
      throws Exception {
    FencedQueue queue = tables.builder(ds, schema).install(false).build().queue();
    if (drained) {
      AgedTables.drain(queue, QUEUE);
    }
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
                      + "\"."
                      + tables.jobTable()
                      + " limit 1) one")) {
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
                          if (drained) {
                            queue.enqueue(QUEUE, "{}");
                          }
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
        drained,
        all,
        completed.get(),
        empty.get(),
        window,
        tables.storage(ds, schema));
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
