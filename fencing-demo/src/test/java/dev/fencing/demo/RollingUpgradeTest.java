package dev.fencing.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import dev.fencing.FencedReceiver;
import dev.fencing.JobState;
import dev.fencing.StoreUnavailableException;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.postgres.admin.EpochOwner;
import dev.fencing.postgres.admin.JobDetails;
import dev.fencing.postgres.admin.QueueSummary;
import dev.fencing.testkit.db.FencingDatabase;
import dev.fencing.testkit.db.TestSchema;
import dev.fencing.testkit.process.JavaProcess;
import dev.fencing.testkit.process.WorkerProcess;
import java.io.File;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A rolling upgrade over real processes (docs/UPGRADING.md, "A rolling upgrade"): workers of the
 * previous release, built from this repository's history ({@link EarlierBuild}), install its schema
 * and drain a queue, one of them stalled by {@code SIGSTOP} on a job; a worker of this build
 * deployed with {@code install(false)} before the migration is refused, naming the version found
 * and the one expected; a migration killed half-way leaves the schema unversioned and the old
 * workers running; the migration applied while an old worker writes; workers of this build take
 * over (one of them the stalled worker's job, at a higher epoch), an old worker started after the
 * migration runs its old installer on the migrated schema and works beside them; the stalled worker
 * wakes and its late writes are refused. In the end every job was completed once, by the newest
 * epoch that claimed it, and the receiver holds that epoch's result.
 *
 * <p>Remove the version check ({@code Installer.refusal} returning null) and the refused worker
 * claims from the unmigrated schema: the test fails there.
 */
@FencingDatabase
class RollingUpgradeTest {

  /** The last build before schema versions were recorded (docs/UPGRADING.md). */
  static final String PREVIOUS = "10cffd4cf6277ac41117ba3ddffc1bb75c925f01";

  /** The previous build's backend: {@code PostgresFencing.builder(ds).schema(s).build()}. */
  private static final String OLD_BACKEND = "dev.fencing.demo.PostgresBackend";

  private static final String QUEUE = "upgrade";
  private static final int JOBS = 60;

  /** The queue of the one job the stalled worker holds, apart so that no old claim takes it. */
  private static final String STALLED = "stalled";

  private static final long STALLED_LEASE_MS = 2_000;
  private static final long LEASE_MS = 60_000;
  private static final Duration WAIT = Duration.ofSeconds(30);

  private static String previous;

  /** Every claim, delivery and commit a worker reported, by job. */
  private final Map<Long, List<String>> claims = new LinkedHashMap<>();

  private final Map<Long, List<String>> delivered = new LinkedHashMap<>();
  private final Map<Long, List<String>> completed = new LinkedHashMap<>();

  @BeforeAll
  static void buildThePreviousRelease() {
    previous = EarlierBuild.at(PREVIOUS).classPath();
  }

  @Test
  @Timeout(value = 3, unit = TimeUnit.MINUTES)
  void workersOfThePreviousReleaseAndOfThisOneShareAQueueThroughTheMigrationAndLoseNothing(
      TestSchema schema) throws Exception {
    List<AutoCloseable> started = new ArrayList<>();
    try {
      // 1. the previous release installs its schema and enqueues
      List<Long> ids = enqueueWithThePreviousRelease(schema, started);
      assertThat(scalar(schema, "select to_regclass('%s.fencing_append_job')::text")).isNotNull();
      assertThat(scalar(schema, "select to_regclass('%s.fencing_schema_version')::text"))
          .as("the previous release records no version")
          .isNull();

      // 2. old worker a holds the stalled job and freezes; old worker b drains, jobs in flight
      WorkerProcess a = old("a", schema, started);
      WorkerProcess b = old("b", schema, started);
      String[] stalled = a.call("claim " + STALLED + " a " + STALLED_LEASE_MS).split(" ");
      assertThat(stalled[0] + " " + stalled[1]).isEqualTo("ok claimed");
      long stalledJob = Long.parseLong(stalled[2]);
      long stalledEpoch = Long.parseLong(stalled[3]);
      record(claims, stalledJob, "a", stalledEpoch);
      a.freeze();
      round(b, 3);
      List<String> inFlight = claim(b, 3);
      assertThat(inFlight).hasSize(3);
      for (String lease : inFlight) {
        accepted(b, "deliver", lease, b.call("deliver " + lease));
      }

      // 3. a worker of this build deployed with install(false) before the migration is refused
      WorkerProcess waiting =
          WorkerProcess.start(
              "waiting", NoInstallPostgresBackend.class, schema.database(), schema.name());
      started.add(waiting);
      assertThat(waiting.call("claimbatch " + QUEUE + " waiting " + LEASE_MS + " 5"))
          .as("a claim of this build on the schema the previous release installed")
          .startsWith("error dev.fencing.SchemaVersionException: ")
          .contains("schema " + schema.name() + " holds fencing tables but records no version")
          .contains("this library needs version " + PostgresFencing.schemaVersion());

      // 4. a migration killed half-way while b writes: nothing of it stays, b goes on
      try (Connection holder = schema.dataSource().getConnection()) {
        CompletableFuture<PostgresFencing> migration = migrationHeldAtItsEnd(schema, holder);
        long pid = waitingMigration(schema, holder);
        b.send("complete " + inFlight.get(0));
        sentDuringTheMigration(schema, pid);
        execute(schema, "select pg_terminate_backend(" + pid + ")");
        holder.rollback();
        assertThatThrownBy(() -> migration.get(WAIT.toSeconds(), TimeUnit.SECONDS))
            .hasCauseInstanceOf(StoreUnavailableException.class);
      }
      accepted(b, "complete", inFlight.get(0), b.awaitReply());
      assertThat(scalar(schema, "select to_regclass('%s.fencing_schema_version')::text"))
          .as("the killed migration's statements were undone, its version table with them")
          .isNull();
      round(b, 3);

      // 5. the migration applied while b writes
      try (Connection holder = schema.dataSource().getConnection()) {
        CompletableFuture<PostgresFencing> migration = migrationHeldAtItsEnd(schema, holder);
        long pid = waitingMigration(schema, holder);
        b.send("complete " + inFlight.get(1));
        sentDuringTheMigration(schema, pid);
        holder.rollback();
        migration.get(WAIT.toSeconds(), TimeUnit.SECONDS).close();
      }
      accepted(b, "complete", inFlight.get(1), b.awaitReply());
      assertThat(versions(schema)).containsExactlyElementsOf(everyVersion());
      // claimed before the migration, committed after it
      accepted(b, "complete", inFlight.get(2), b.call("complete " + inFlight.get(2)));
      round(b, 3);

      // 6. this build's workers take over; a's job once its lease ran out, at a higher epoch
      WorkerProcess c =
          WorkerProcess.start("c", PostgresBackend.class, schema.database(), schema.name());
      started.add(c);
      String taken = takeOver(c, stalledJob);
      long takenEpoch = Long.parseLong(taken.split("@")[1]);
      assertThat(takenEpoch).isGreaterThan(stalledEpoch);
      finish(c, taken);
      round(c, 3);
      round(b, 3);
      b.close();
      assertThat(round(waiting, 3))
          .as("the worker refused before the migration works now, without a restart")
          .isNotEmpty();
      // an old worker started after the migration: its installer runs the whole old schema again
      WorkerProcess d = old("d", schema, started);
      assertThat(round(d, 3)).hasSize(3);
      assertThat(round(d, 3)).hasSize(3);
      d.close();
      assertThat(versions(schema)).containsExactlyElementsOf(everyVersion());
      // this build's workers drain the rest
      for (int claimed = 1; claimed > 0; ) {
        claimed = round(c, 5).size() + round(waiting, 5).size();
      }

      // 7. a wakes up: its late writes under the lease that ran out are refused
      a.thaw();
      String late = stalledJob + "@" + stalledEpoch;
      assertThat(a.call("deliver " + late))
          .isEqualTo("refused Superseded epoch=" + stalledEpoch + " current=" + takenEpoch);
      assertThat(a.call("complete " + late))
          .isEqualTo("refused Superseded epoch=" + stalledEpoch + " current=" + takenEpoch);

      // 8. every job completed once, by the newest epoch that claimed it
      everyJobCompletedOnceByItsNewestEpoch(schema, ids, stalledJob);
    } finally {
      for (AutoCloseable process : started.reversed()) {
        process.close();
      }
    }
  }

  private void everyJobCompletedOnceByItsNewestEpoch(
      TestSchema schema, List<Long> ids, long stalledJob) throws SQLException {
    try (PostgresFencing fencing =
        PostgresFencing.builder(schema.pooledDataSource(2))
            .schema(schema.name())
            .install(false)
            .build()) {
      completedOnceByTheNewestEpoch(fencing, ids, stalledJob);
    }
    assertThat(claims.get(stalledJob)).hasSize(2);
    assertThat(versions(schema)).containsExactlyElementsOf(everyVersion());
  }

  private void completedOnceByTheNewestEpoch(
      PostgresFencing fencing, List<Long> ids, long stalledJob) {
    assertThat(fencing.admin().queues(true))
        .extracting(
            QueueSummary::queue,
            QueueSummary::pending,
            QueueSummary::running,
            QueueSummary::failed,
            QueueSummary::completed)
        .containsExactlyInAnyOrder(
            tuple(QUEUE, 0L, 0L, 0L, (long) JOBS), tuple(STALLED, 0L, 0L, 0L, 1L));
    List<Long> all = new ArrayList<>(ids);
    all.add(stalledJob);
    assertThat(completed.keySet()).containsExactlyInAnyOrderElementsOf(all);
    FencedReceiver receiver = fencing.receiver("default");
    for (long id : all) {
      JobDetails job = fencing.admin().job(id).orElseThrow();
      long newest = job.history().stream().mapToLong(EpochOwner::epoch).max().orElseThrow();
      String owner = job.history().getLast().owner();
      String by = owner + "@" + newest;
      assertThat(job.job().state()).as("job %d", id).isEqualTo(JobState.COMPLETED);
      assertThat(job.job().epoch()).as("job %d", id).isEqualTo(newest);
      assertThat(claims.get(id)).as("job %d", id).last().isEqualTo(by);
      assertThat(completed.get(id)).as("job %d, accepted once", id).containsExactly(by);
      assertThat(delivered.get(id)).as("job %d, accepted once", id).containsExactly(by);
      assertThat(job.job().result())
          .as("job %d", id)
          .contains("\"epoch\": " + newest)
          .contains("\"worker\": \"" + owner + "\"");
      FencedReceiver.Receipt receipt = receiver.newest(Long.toString(id)).orElseThrow();
      assertThat(receipt.epoch().value()).as("job %d", id).isEqualTo(newest);
      assertThat(receipt.payload()).as("job %d", id).contains("\"worker\": \"" + owner + "\"");
    }
  }

  /** Enqueues through a process of the previous release, which installs its schema first. */
  private static List<Long> enqueueWithThePreviousRelease(
      TestSchema schema, List<AutoCloseable> started) throws Exception {
    String own =
        Path.of(EnqueueMain.class.getProtectionDomain().getCodeSource().getLocation().toURI())
            .toString();
    var db = schema.database();
    JavaProcess producer =
        JavaProcess.start(
            "producer",
            List.of(),
            previous + File.pathSeparator + own,
            EnqueueMain.class.getName(),
            List.of(
                db.jdbcUrl(),
                db.user(),
                db.password(),
                schema.name(),
                QUEUE,
                Integer.toString(JOBS),
                STALLED,
                "1"));
    started.add(producer);
    assertThat(line(producer, 0))
        .as("the previous release's library, not this build's")
        .startsWith("ok library ")
        .contains("earlier-build-" + PREVIOUS.substring(0, 7));
    String jobs = line(producer, 1);
    assertThat(line(producer, 2)).startsWith("ok enqueued " + STALLED + " ");
    assertThat(producer.awaitExit(WAIT)).isZero();
    assertThat(jobs).startsWith("ok enqueued " + QUEUE + " ");
    List<Long> ids =
        java.util.Arrays.stream(jobs.substring(("ok enqueued " + QUEUE + " ").length()).split(","))
            .map(Long::valueOf)
            .toList();
    assertThat(ids).hasSize(JOBS);
    return ids;
  }

  private static String line(JavaProcess process, int index) {
    int at = process.await(index, l -> true, WAIT);
    return process.lines().get(at);
  }

  private static WorkerProcess old(String name, TestSchema schema, List<AutoCloseable> started) {
    WorkerProcess worker =
        WorkerProcess.start(name, previous, OLD_BACKEND, schema.database(), schema.name());
    started.add(worker);
    return worker;
  }

  /**
   * Starts this build's migration of {@code schema} in this JVM, after {@code holder} locked the
   * table the script's last statements write, so that it stops there with every earlier statement
   * run ({@code fencing_schema_version} created among them), inside its transaction. {@code SHARE}
   * lets the installer read the table before the script, as workers do, and stops a write.
   */
  private static CompletableFuture<PostgresFencing> migrationHeldAtItsEnd(
      TestSchema schema, Connection holder) throws SQLException {
    holder.setAutoCommit(false);
    try (Statement s = holder.createStatement()) {
      s.execute("lock table " + schema.name() + ".fencing_schema in share mode");
    }
    return CompletableFuture.supplyAsync(
        () ->
            PostgresFencing.builder(schema.dataSource())
                .schema(schema.name())
                .transientRetries(0)
                .build());
  }

  /** Returns the pid of the migration's connection once it waits for {@code holder}'s lock. */
  private static long waitingMigration(TestSchema schema, Connection holder) throws Exception {
    long holderPid;
    try (Statement s = holder.createStatement();
        ResultSet r = s.executeQuery("select pg_backend_pid()")) {
      r.next();
      holderPid = r.getLong(1);
    }
    // from a connection of its own: the holder's transaction would see one snapshot of the view;
    // the driver sends the script as its statements (in one round trip): the view shows the one
    // that waits
    List<Long> waiting =
        poll(
            schema,
            "select pid from pg_stat_activity where "
                + holderPid
                + " = any(pg_blocking_pids(pid)) and query ilike '%insert into fencing_schema %'");
    assertThat(waiting).as("the migration's connection, waiting at its script's end").hasSize(1);
    return waiting.getFirst();
  }

  /**
   * Waits until a write sent while the migration's transaction is open waits for it (the script
   * declares its indexes again on the tables workers write, which takes {@code SHARE} locks on them
   * until it ends), for up to 3 s: if it went through or did not reach the database by then, it was
   * still sent while the migration ran.
   */
  private static void sentDuringTheMigration(TestSchema schema, long migration) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
    String waiting =
        "select pid from pg_stat_activity where " + migration + " = any(pg_blocking_pids(pid))";
    while (rows(schema, waiting).isEmpty() && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
  }

  /** Polls {@code sql} until it returns a row, for up to {@link #WAIT}. */
  private static List<Long> poll(TestSchema schema, String sql) throws Exception {
    long deadline = System.nanoTime() + WAIT.toNanos();
    List<Long> found = rows(schema, sql);
    while (found.isEmpty() && System.nanoTime() < deadline) {
      Thread.sleep(20);
      found = rows(schema, sql);
    }
    return found;
  }

  /** Claims {@code stalledJob} with {@code worker} once the stalled worker's lease ran out. */
  private String takeOver(WorkerProcess worker, long stalledJob) throws InterruptedException {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (true) {
      String reply = worker.call("claim " + STALLED + " " + worker.name() + " " + LEASE_MS);
      if (reply.startsWith("ok claimed ")) {
        String[] words = reply.split(" ");
        assertThat(Long.parseLong(words[2])).isEqualTo(stalledJob);
        record(claims, stalledJob, worker.name(), Long.parseLong(words[3]));
        return stalledJob + "@" + words[3];
      }
      assertThat(reply).isEqualTo("ok none");
      assertThat(System.nanoTime()).as("a's lease ran out within %s", WAIT).isLessThan(deadline);
      Thread.sleep(100);
    }
  }

  /** Claims up to {@code n} jobs of the queue and delivers and completes each; returns them. */
  private List<String> round(WorkerProcess worker, int n) {
    List<String> leases = claim(worker, n);
    leases.forEach(lease -> finish(worker, lease));
    return leases;
  }

  /** Claims up to {@code n} jobs of the queue; returns their leases as {@code ID@EPOCH}. */
  private List<String> claim(WorkerProcess worker, int n) {
    String reply =
        worker.call("claimbatch " + QUEUE + " " + worker.name() + " " + LEASE_MS + " " + n);
    assertThat(reply).as("%s claims", worker.name()).startsWith("ok ");
    if (reply.equals("ok none")) {
      return List.of();
    }
    String[] words = reply.split(" ");
    // one job: "ok claimed ID EPOCH EXPIRES"; more: "ok claimed ID:EPOCH,ID:EPOCH,..."
    List<String> held =
        words.length == 5 ? List.of(words[2] + ":" + words[3]) : List.of(words[2].split(","));
    List<String> leases = new ArrayList<>();
    for (String job : held) {
      String[] idAndEpoch = job.split(":");
      long id = Long.parseLong(idAndEpoch[0]);
      record(claims, id, worker.name(), Long.parseLong(idAndEpoch[1]));
      leases.add(id + "@" + idAndEpoch[1]);
    }
    return leases;
  }

  private void finish(WorkerProcess worker, String lease) {
    for (String command : List.of("deliver", "complete")) {
      accepted(worker, command, lease, worker.call(command + " " + lease));
    }
  }

  private void accepted(WorkerProcess worker, String command, String lease, String reply) {
    String[] idAndEpoch = lease.split("@");
    assertThat(reply)
        .as("%s: %s %s", worker.name(), command, lease)
        .isEqualTo("ok accepted " + idAndEpoch[1] + " repeat=false");
    record(
        command.equals("deliver") ? delivered : completed,
        Long.parseLong(idAndEpoch[0]),
        worker.name(),
        Long.parseLong(idAndEpoch[1]));
  }

  private static void record(Map<Long, List<String>> log, long job, String worker, long epoch) {
    log.computeIfAbsent(job, j -> new ArrayList<>()).add(worker + "@" + epoch);
  }

  /**
   * What {@link #versions} reads once this build migrated the schema: a row per script it ships,
   * each an expand step (compatible from 1), so that the previous release still runs on it.
   */
  private static List<String> everyVersion() {
    return PostgresFencing.migrations().stream()
        .map(m -> m.version() + " " + m.description() + " 1")
        .toList();
  }

  private static List<String> versions(TestSchema schema) throws SQLException {
    List<String> rows = new ArrayList<>();
    try (Connection c = schema.dataSource().getConnection();
        Statement s = c.createStatement();
        ResultSet r =
            s.executeQuery(
                String.format(
                    "select version, description, compatible_from from %s.fencing_schema_version"
                        + " order by version",
                    schema.name()))) {
      while (r.next()) {
        rows.add(r.getInt(1) + " " + r.getString(2) + " " + r.getInt(3));
      }
    }
    return rows;
  }

  private static List<Long> rows(TestSchema schema, String sql) throws SQLException {
    List<Long> rows = new ArrayList<>();
    try (Connection c = schema.dataSource().getConnection();
        PreparedStatement s = c.prepareStatement(sql);
        ResultSet r = s.executeQuery()) {
      while (r.next()) {
        rows.add(r.getLong(1));
      }
    }
    return rows;
  }

  private static String scalar(TestSchema schema, String sql) throws SQLException {
    try (Connection c = schema.dataSource().getConnection();
        Statement s = c.createStatement();
        ResultSet r = s.executeQuery(String.format(sql, schema.name()))) {
      r.next();
      return r.getString(1);
    }
  }

  private static void execute(TestSchema schema, String sql) throws SQLException {
    try (Connection c = schema.dataSource().getConnection();
        Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }
}
