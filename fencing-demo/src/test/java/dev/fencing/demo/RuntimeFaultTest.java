package dev.fencing.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.FencedQueue;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.testkit.db.FencingDatabase;
import dev.fencing.testkit.db.TestSchema;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Random;
import javax.sql.DataSource;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;

/**
 * Worker processes running {@link dev.fencing.runtime.FencedWorkers} drain one queue while the test
 * kills them, freezes them past their lease, terminates their database backends and restarts
 * PostgreSQL; then every job must have completed once, from its final epoch, with the receiver
 * holding that epoch's payload, no caller told of a stale accept, and every worker stopping in
 * time. See {@link ChaosChecks} for the checks and {@link ChaosWorkerMain} for the workers.
 *
 * <p>The CI form is small (2,000 jobs, 3 faults of each kind). The long form, which also writes
 * docs/RELIABILITY.md, is {@link ChaosReport#LONG_FORM_COMMAND}. System properties: {@code
 * fencing.chaos.jobs}, {@code .faults} (per kind), {@code .workers}, {@code .seed}, {@code
 * .leaseMs}, {@code .concurrency}, {@code .maxAttempts}, {@code .drainSeconds}, {@code .report} (a
 * path for the RELIABILITY.md page), {@code .variant} ({@code no-cas} runs the workers on {@link
 * BrokenVariants.NoCompareAndSet}, a backend without the compare-and-set, to see the checks fail;
 * {@code update-in-place} runs everything on that engine, as {@link UpdateInPlaceRuntimeFaultTest}
 * does; any other, the default engine, append-only).
 */
@FencingDatabase
class RuntimeFaultTest {

  /** The owner names; each is shared by every other worker process. */
  static final List<String> OWNERS = List.of("alpha", "beta");

  private static final String QUEUE = "chaos";

  /** The kinds of fault the chaos loop injects. */
  enum Fault {
    KILL("SIGKILL + restart, same owner"),
    STALL("SIGSTOP past the lease + SIGCONT"),
    TERMINATE_BACKENDS("pg_terminate_backend"),
    RESTART_POSTGRES("PostgreSQL restart");

    private final String label;

    Fault(String label) {
      this.label = label;
    }

    String label() {
      return label;
    }
  }

  /** The size and shape of a run, from system properties. */
  record Settings(
      int jobs,
      int faultsPerKind,
      int workers,
      long seed,
      Duration lease,
      int concurrency,
      int batchSize,
      int maxAttempts,
      Duration drainBound,
      String variant,
      Optional<Path> report) {

    static Settings fromSystemProperties() {
      return fromSystemProperties("real", 2_000, 3);
    }

    static Settings fromSystemProperties(String variant, int jobs, int faults) {
      return new Settings(
          Integer.getInteger("fencing.chaos.jobs", jobs),
          Integer.getInteger("fencing.chaos.faults", faults),
          Integer.getInteger("fencing.chaos.workers", 4),
          Long.getLong("fencing.chaos.seed", System.nanoTime()),
          Duration.ofMillis(Long.getLong("fencing.chaos.leaseMs", 600)),
          Integer.getInteger("fencing.chaos.concurrency", 8),
          10,
          Integer.getInteger("fencing.chaos.maxAttempts", 1_000),
          Duration.ofSeconds(Long.getLong("fencing.chaos.drainSeconds", 180)),
          System.getProperty("fencing.chaos.variant", variant),
          Optional.ofNullable(System.getProperty("fencing.chaos.report")).map(Path::of));
    }

    /**
     * Whether the queue runs on the append-only engine, the default: all but {@code
     * update-in-place} and {@code no-cas} (whose broken queue is of the update-in-place engine).
     */
    boolean appendOnly() {
      return !variant.equals(UPDATE_IN_PLACE) && !variant.equals("no-cas");
    }

    /** The default max attempts is out of reach: then every job must complete. */
    boolean attemptsMayRunOut() {
      return maxAttempts < 1_000;
    }
  }

  /** The variant that runs the queue on {@link PostgresFencing.Engine#APPEND_ONLY}. */
  static final String APPEND_ONLY = "append-only";

  /** The variant that runs the queue on {@link PostgresFencing.Engine#UPDATE_IN_PLACE}. */
  static final String UPDATE_IN_PLACE = "update-in-place";

  private final Settings settings = settings();
  private final Random random = new Random(settings.seed());
  private final Map<Fault, Integer> injected = new EnumMap<>(Fault.class);
  private final List<ChaosWorker> incarnations = new ArrayList<>();
  private final List<String> crashes = new ArrayList<>();
  private int backendsTerminated;
  private ChaosWorker.Config config;
  private ChaosWorker[] workers;

  /** The run's settings; a subclass runs another variant or size by default. */
  Settings settings() {
    return Settings.fromSystemProperties();
  }

  @Test
  void everyJobCompletesOnceThroughKillsStallsTerminationsAndRestarts(TestSchema schema)
      throws Exception {
    long started = System.nanoTime();
    System.out.println("RuntimeFaultTest: " + settings);
    DataSource db = schema.dataSource();
    FencedQueue queue =
        PostgresFencing.builder(db)
            .schema(schema.name())
            .maxAttempts(settings.maxAttempts())
            .engine(
                settings.appendOnly()
                    ? PostgresFencing.Engine.APPEND_ONLY
                    : PostgresFencing.Engine.UPDATE_IN_PLACE)
            .build()
            .queue();
    PostgresFencing.builder(db).schema(schema.name()).build().receiver(ChaosWorkerMain.RECEIVER);
    Path logs = Files.createDirectories(Path.of("target", "chaos", schema.name()));
    StringBuilder skipped = new StringBuilder();
    Optional<PostgresRestarter> restarter =
        PostgresRestarter.of(schema.database(), logs.resolve("postgres.log"), skipped);
    if (restarter.isEmpty()) {
      System.out.println("RuntimeFaultTest: skipping the PostgreSQL restarts: " + skipped);
    }
    config =
        new ChaosWorker.Config(
            schema.database(),
            schema.name(),
            QUEUE,
            logs,
            settings.lease(),
            settings.concurrency(),
            settings.batchSize(),
            settings.lease().multipliedBy(3).plusSeconds(2),
            settings.variant());
    List<Fault> plan = plan(restarter.isPresent());
    List<List<String>> waves = waves(payloads(), plan.size() + 1);
    queue.enqueueAll(QUEUE, waves.getFirst());
    workers = new ChaosWorker[settings.workers()];
    List<ChaosChecks.Exit> exits = new ArrayList<>();
    Duration chaos;
    Duration drain;
    Duration stop;
    try {
      for (int w = 0; w < workers.length; w++) {
        workers[w] = start(w, 0);
      }
      long chaosStart = System.nanoTime();
      for (int i = 0; i < plan.size(); i++) {
        replaceCrashed();
        inject(plan.get(i), restarter, db);
        queue.enqueueAll(QUEUE, waves.get(i + 1));
        Thread.sleep(200 + random.nextInt(500));
      }
      chaos = Duration.ofNanos(System.nanoTime() - chaosStart);
      long drainStart = System.nanoTime();
      awaitDrained(db, schema.name(), settings.appendOnly());
      drain = Duration.ofNanos(System.nanoTime() - drainStart);
      long stopStart = System.nanoTime();
      stopAll(exits);
      stop = Duration.ofNanos(System.nanoTime() - stopStart);
    } finally {
      for (ChaosWorker w : incarnations) {
        w.close();
      }
    }
    List<ChaosLogs> outcomeLogs = new ArrayList<>();
    for (ChaosWorker w : incarnations) {
      outcomeLogs.add(ChaosLogs.read(w.name() + "." + w.incarnation(), w.log(), w.killed()));
    }
    ChaosChecks checks =
        new ChaosChecks(
            settings.jobs(),
            rows(db, schema.name(), settings.appendOnly()),
            outcomeLogs,
            exits,
            crashes,
            settings.attemptsMayRunOut());
    ChaosReport.Run run =
        new ChaosReport.Run(
            settings,
            injected,
            skipped.toString(),
            backendsTerminated,
            incarnations.size(),
            checks,
            chaos,
            drain,
            stop,
            Duration.ofNanos(System.nanoTime() - started),
            postgresVersion(db));
    System.out.println(
        "RuntimeFaultTest (seed " + settings.seed() + ")\n" + ChaosReport.table(run));
    System.out.println("Checks:\n" + checks.summary());
    if (settings.report().isPresent()) {
      ChaosReport.write(settings.report().get(), run);
      System.out.println("RuntimeFaultTest: wrote " + settings.report().get().toAbsolutePath());
    }
    SoftAssertions softly = new SoftAssertions();
    checks.violations().forEach((check, found) -> softly.assertThat(found).as(check).isEmpty());
    softly.assertAll();
    for (Fault f : plan) {
      assertThat(injected.getOrDefault(f, 0))
          .as("faults injected: " + f)
          .isEqualTo(settings.faultsPerKind());
    }
  }

  private List<Fault> plan(boolean canRestart) {
    List<Fault> plan = new ArrayList<>();
    for (Fault f : Fault.values()) {
      if (f != Fault.RESTART_POSTGRES || canRestart) {
        plan.addAll(Collections.nCopies(settings.faultsPerKind(), f));
      }
    }
    Collections.shuffle(plan, random);
    return plan;
  }

  /**
   * Handlers that straddle the lease: 75 % run 20-200 ms, 12 % about one lease, 8 % three leases; 5
   * % are stubborn (they ignore cancellation) and run anywhere from 20 ms to three leases.
   */
  private List<String> payloads() {
    long lease = settings.lease().toMillis();
    List<String> payloads = new ArrayList<>(settings.jobs());
    for (int n = 0; n < settings.jobs(); n++) {
      double r = random.nextDouble();
      long ms;
      boolean stubborn = false;
      if (r < 0.75) {
        ms = 20 + random.nextInt(181);
      } else if (r < 0.87) {
        ms = lease * 8 / 10 + random.nextLong(lease * 4 / 10 + 1);
      } else if (r < 0.95) {
        ms = lease * 3;
      } else {
        stubborn = true;
        ms = 20 + random.nextLong(lease * 3);
      }
      payloads.add("{\"n\": " + n + ", \"ms\": " + ms + ", \"stubborn\": " + stubborn + "}");
    }
    return payloads;
  }

  private static List<List<String>> waves(List<String> payloads, int count) {
    List<List<String>> waves = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      waves.add(payloads.subList(payloads.size() * i / count, payloads.size() * (i + 1) / count));
    }
    return waves;
  }

  private ChaosWorker start(int slot, int incarnation) {
    ChaosWorker w =
        ChaosWorker.start(config, "w" + slot, OWNERS.get(slot % OWNERS.size()), incarnation);
    incarnations.add(w);
    return w;
  }

  private void inject(Fault fault, Optional<PostgresRestarter> restarter, DataSource db)
      throws Exception {
    int slot = random.nextInt(workers.length);
    ChaosWorker w = workers[slot];
    long t = System.nanoTime();
    String what =
        switch (fault) {
          case KILL -> {
            w.kill();
            workers[slot] = start(slot, w.incarnation() + 1);
            yield w.name() + " (pid " + w.pid() + "), restarted as pid " + workers[slot].pid();
          }
          case STALL -> {
            Duration stall =
                Duration.ofMillis(
                    settings.lease().toMillis() * 3 / 2
                        + random.nextLong(settings.lease().toMillis() * 5 / 2));
            w.freeze();
            Thread.sleep(stall);
            w.thaw();
            yield w.name() + " (pid " + w.pid() + ") for " + stall.toMillis() + " ms";
          }
          case TERMINATE_BACKENDS -> {
            int n = terminateBackends(db);
            backendsTerminated += n;
            yield n + " backends";
          }
          case RESTART_POSTGRES -> {
            Duration downtime = Duration.ofMillis(200 + random.nextInt(1_300));
            restarter.orElseThrow().restart(downtime);
            yield "down for " + downtime.toMillis() + " ms";
          }
        };
    injected.merge(fault, 1, Integer::sum);
    System.out.printf(
        "RuntimeFaultTest: %-18s %s (%d ms)%n",
        fault, what, Duration.ofNanos(System.nanoTime() - t).toMillis());
  }

  private static int terminateBackends(DataSource db) throws SQLException {
    try (Connection c = db.getConnection();
        PreparedStatement s =
            c.prepareStatement(
                "SELECT count(*) FILTER (WHERE pg_terminate_backend(pid))"
                    + " FROM pg_stat_activity WHERE application_name LIKE ?")) {
      s.setString(1, ChaosWorkerMain.APPLICATION_PREFIX + "%");
      try (ResultSet r = s.executeQuery()) {
        r.next();
        return r.getInt(1);
      }
    }
  }

  /** Restarts any worker that died without being killed by the test, and records it. */
  private void replaceCrashed() {
    for (int slot = 0; slot < workers.length; slot++) {
      ChaosWorker w = workers[slot];
      if (!w.isAlive() && !w.killed()) {
        crashes.add(w.name() + "." + w.incarnation() + " (pid " + w.pid() + ") died by itself");
        workers[slot] = start(slot, w.incarnation() + 1);
      }
    }
  }

  private void awaitDrained(DataSource db, String schema, boolean appendOnly)
      throws InterruptedException {
    String open =
        appendOnly
            ? "SELECT count(*) FROM \"%1$s\".fencing_append_job j WHERE NOT EXISTS"
                + " (SELECT 1 FROM \"%1$s\".fencing_append_done d WHERE d.job_id = j.id)"
            : "SELECT count(*) FROM \"%1$s\".fencing_job WHERE status IN ('pending', 'running')";
    long deadline = System.nanoTime() + settings.drainBound().toNanos();
    while (System.nanoTime() - deadline < 0) {
      replaceCrashed();
      try (Connection c = db.getConnection();
          Statement s = c.createStatement();
          ResultSet r = s.executeQuery(String.format(open, schema))) {
        r.next();
        if (r.getLong(1) == 0) {
          return;
        }
      } catch (SQLException e) {
        // the server may still be coming back; ask again
      }
      Thread.sleep(250);
    }
    System.out.println("RuntimeFaultTest: jobs still open after " + settings.drainBound());
  }

  private void stopAll(List<ChaosChecks.Exit> exits) {
    long told = System.nanoTime();
    for (ChaosWorker w : workers) {
      w.requestStop();
    }
    Duration bound = config.drainTimeout().plusSeconds(15);
    for (ChaosWorker w : workers) {
      Duration left = bound.minusNanos(System.nanoTime() - told);
      OptionalInt code = w.await(left.isNegative() ? Duration.ZERO : left);
      exits.add(
          new ChaosChecks.Exit(
              w.name() + "." + w.incarnation(),
              true,
              code.isPresent() ? code.getAsInt() : null,
              Duration.ofNanos(System.nanoTime() - told).toMillis()));
    }
  }

  private static List<ChaosChecks.JobRow> rows(DataSource db, String schema, boolean appendOnly)
      throws SQLException {
    String sql =
        appendOnly
            // a job not done yet shows as running, with no epoch: the checks find it unfinished
            ? "SELECT j.id, coalesce(d.status, 'running'), coalesce(d.epoch, 0), d.owner,"
                + " coalesce(d.attempts, 0), d.last_error,"
                + " (d.result->>'job')::bigint, (d.result->>'epoch')::bigint, d.result->>'owner',"
                + " r.epoch, r.payload = d.result"
                + " FROM \"%1$s\".fencing_append_job j"
                + " LEFT JOIN \"%1$s\".fencing_append_done d ON d.job_id = j.id"
                + " LEFT JOIN \"%1$s\".fencing_receipt r"
                + " ON r.receiver = ? AND r.key = j.id::text WHERE j.queue = ? ORDER BY j.id"
            : "SELECT j.id, j.status, j.epoch, j.owner, j.attempts, j.last_error,"
                + " (j.result->>'job')::bigint, (j.result->>'epoch')::bigint, j.result->>'owner',"
                + " r.epoch, r.payload = j.result"
                + " FROM \"%1$s\".fencing_job j LEFT JOIN \"%1$s\".fencing_receipt r"
                + " ON r.receiver = ? AND r.key = j.id::text WHERE j.queue = ? ORDER BY j.id";
    List<ChaosChecks.JobRow> rows = new ArrayList<>();
    try (Connection c = db.getConnection();
        PreparedStatement s = c.prepareStatement(String.format(sql, schema))) {
      s.setString(1, ChaosWorkerMain.RECEIVER);
      s.setString(2, QUEUE);
      try (ResultSet r = s.executeQuery()) {
        while (r.next()) {
          rows.add(
              new ChaosChecks.JobRow(
                  r.getLong(1),
                  r.getString(2),
                  r.getLong(3),
                  r.getString(4),
                  r.getInt(5),
                  r.getString(6),
                  r.getObject(7, Long.class),
                  r.getObject(8, Long.class),
                  r.getString(9),
                  r.getObject(10, Long.class),
                  r.getObject(11, Boolean.class)));
        }
      }
    }
    return rows;
  }

  private static String postgresVersion(DataSource db) throws SQLException {
    try (Connection c = db.getConnection();
        Statement s = c.createStatement();
        ResultSet r = s.executeQuery("SELECT version()")) {
      r.next();
      return r.getString(1);
    }
  }
}
