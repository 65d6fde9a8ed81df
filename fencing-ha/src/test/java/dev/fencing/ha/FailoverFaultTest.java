package dev.fencing.ha;

import dev.fencing.FencedQueue;
import dev.fencing.StoreUnavailableException;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.testkit.db.FencingDatabase;
import dev.fencing.testkit.db.PostgresFixture;
import dev.fencing.testkit.db.TestSchema;
import dev.fencing.testkit.process.JavaProcess;
import dev.fencing.testkit.process.Signals;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Worker JVMs on {@link dev.fencing.runtime.FencedWorkers} drain a queue on the replicated cluster
 * (its multi-host URL) and deliver every result to a receiver in another database (the test kit's
 * PostgreSQL, which no failover touches), while the test fails the cluster over: {@code SIGKILL} of
 * the leader (its Patroni and postmaster), or a planned switchover. Before each kill the leader's
 * WAL sender is stopped for a while ({@code SIGSTOP}, as a slow network would hold it), so the
 * promoted replica surely lacks the old primary's last claims and commits; with asynchronous
 * replication they are lost, with synchronous replication they were never acknowledged.
 *
 * <p>Then, per job and per token: every job completed, its result and the receiver's newest
 * delivery from its final epoch, no token claimed by two owners, no stale accept, and in
 * synchronous mode no completion lost (in asynchronous mode the completions lost and run again are
 * counted). The time from each fault until a worker's handler starts on a claim of the new
 * primary's generation is measured. See {@link FailoverChecks}.
 *
 * <p>Each variant runs side by side with the others through the same failovers, with its own
 * schema, receiver and workers: {@code real}, the library as it is, must pass every check; {@code
 * no-generation} runs the workers with the generation turned off ({@link FailoverWorkerMain}), and
 * passes only if, in asynchronous mode, tokens held by two owners are found: it shows that the
 * checks can fail, on the same failover.
 *
 * <p>The CI form is one kill in asynchronous mode, two workers and 400 jobs per variant. The long
 * form, which also writes its section of docs/RELIABILITY.md, is {@link
 * FailoverReport#LONG_FORM_COMMAND}. System properties, all {@code fencing.failover.}: {@code
 * modes} ({@code async,sync}), {@code kills} and {@code switchovers} (per mode), {@code variants}
 * ({@code real,no-generation}), {@code workers} (per variant), {@code concurrency}, {@code
 * leaseMs}, {@code jobsPerFault} (per variant), {@code lagMs} (how long the WAL sender is stopped
 * before a kill), {@code seed}, and {@code report} (a path for the page).
 */
@ExtendWith(SharedPatroniCluster.class)
@FencingDatabase
class FailoverFaultTest {

  private static final Duration WAIT = Duration.ofSeconds(60);

  /** The longest the real workers' first claim may follow the promoted node's first write. */
  private static final Duration RECOVERY = Duration.ofSeconds(3);

  /**
   * How much WAL the replica must lack at a kill, if the workers write it within {@link #MAX_LAG}.
   */
  private static final long MIN_LAG_BYTES = 64 * 1024;

  /** How much longer than the lag the WAL sender may stay stopped, waiting for those bytes. */
  private static final Duration MAX_LAG = Duration.ofSeconds(5);

  private static final String QUEUE = "failover";

  /** A result's epoch and owner in its {@code jsonb} text ({@code {"epoch": 7, "owner": "a"}}). */
  private static final Pattern RESULT_EPOCH = Pattern.compile("\"epoch\": (\\d+)");

  private static final Pattern RESULT_OWNER = Pattern.compile("\"owner\": \"([^\"]*)\"");

  /** The owner of worker {@code i}: the first two share a name, as two replicas of one service. */
  private static final List<String> OWNERS = List.of("alpha", "alpha", "beta");

  /** The library as it is. */
  static final String REAL = "real";

  /** The workers' claims computing generation 0 on every timeline ({@link FailoverWorkerMain}). */
  static final String NO_GENERATION = "no-generation";

  /** The two kinds of failover. */
  enum Fault {
    KILL,
    SWITCHOVER
  }

  /** The size and shape of a run, from system properties. */
  record Settings(
      List<String> modes,
      int kills,
      int switchovers,
      int workers,
      int concurrency,
      Duration lease,
      int jobsPerFault,
      Duration lag,
      long seed,
      List<String> variants,
      Optional<Path> report) {

    static Settings fromSystemProperties() {
      return new Settings(
          List.of(System.getProperty("fencing.failover.modes", "async").split(",")),
          Integer.getInteger("fencing.failover.kills", 1),
          Integer.getInteger("fencing.failover.switchovers", 0),
          Integer.getInteger("fencing.failover.workers", 2),
          Integer.getInteger("fencing.failover.concurrency", 6),
          Duration.ofMillis(Long.getLong("fencing.failover.leaseMs", 2_000)),
          Integer.getInteger("fencing.failover.jobsPerFault", 400),
          Duration.ofMillis(Long.getLong("fencing.failover.lagMs", 1_000)),
          Long.getLong("fencing.failover.seed", System.nanoTime()),
          List.of(
              System.getProperty("fencing.failover.variants", REAL + "," + NO_GENERATION)
                  .split(",")),
          Optional.ofNullable(System.getProperty("fencing.failover.report")).map(Path::of));
    }
  }

  /**
   * One failover as injected.
   *
   * @param lagBytes WAL the leader had written beyond what its replica received when killed (0 for
   *     a switchover)
   * @param writableMillis from the fault until the promoted node took its first write ({@link
   *     WritableProbe})
   * @param claimMillis from the fault until a handler started on a claim of the new generation;
   *     empty with the generation turned off (no claim tells its generation then)
   */
  record Failover(
      Fault fault, long lagBytes, long writableMillis, OptionalLong claimMillis, long timeline) {}

  /** What one variant's run in one mode found. */
  record ModeRun(
      String variant,
      String mode,
      List<Failover> failovers,
      FailoverChecks checks,
      Duration drain,
      Duration total,
      int jobs) {}

  private final Settings settings = Settings.fromSystemProperties();
  private final Random random = new Random(settings.seed());

  @Test
  void everyJobCompletesAndNoTokenHasTwoOwnersAcrossFailovers(
      PatroniCluster cluster, TestSchema receiverSchema) throws Exception {
    System.out.println("FailoverFaultTest: " + settings);
    List<ModeRun> runs = new ArrayList<>();
    for (String mode : settings.modes()) {
      runs.addAll(run(cluster, receiverSchema, mode));
    }
    String table = FailoverReport.table(runs);
    System.out.println("FailoverFaultTest (seed " + settings.seed() + ")\n" + table);
    if (settings.report().isPresent()) {
      FailoverReport.write(settings.report().get(), settings, runs, cluster);
      System.out.println("FailoverFaultTest: wrote " + settings.report().get().toAbsolutePath());
    }
    SoftAssertions softly = new SoftAssertions();
    for (ModeRun run : runs) {
      String what = run.variant() + ", " + run.mode() + " mode";
      System.out.println("Checks, " + what + ":\n" + run.checks().summary());
      softly
          .assertThat(run.failovers())
          .as("failovers, %s", what)
          .hasSize(settings.kills() + settings.switchovers());
      if (run.variant().equals(REAL)) {
        run.checks()
            .violations()
            .forEach(
                (check, found) -> softly.assertThat(found).as("%s: %s", what, check).isEmpty());
        for (Failover f : run.failovers()) {
          // within a second or so on this machine (RecoveryAfterKillTest); HikariCP's backoff
          // alone, which the workers' PrimaryWaitingDataSource keeps them from, can take 5 s
          f.claimMillis()
              .ifPresent(
                  claim ->
                      softly
                          .assertThat(claim - f.writableMillis())
                          .as("%s: %s, ms from the first write to the first claim", what, f)
                          .isLessThan(RECOVERY.toMillis()));
        }
      } else if (run.mode().equals("async") && settings.kills() > 0) {
        // with synchronous replication a claim the promotion lost was never acknowledged: no
        // worker held it, with or without the generation
        softly
            .assertThat(run.checks().violations().get(FailoverChecks.ONE_TOKEN))
            .as("%s: tokens held by two owners (the check can fail)", what)
            .isNotEmpty();
      }
    }
    softly.assertAll();
  }

  /**
   * Runs every variant in {@code mode} side by side, each with its own schema, receiver and
   * workers, through the same failovers.
   */
  private List<ModeRun> run(PatroniCluster cluster, TestSchema receiverSchema, String mode)
      throws Exception {
    long started = System.nanoTime();
    boolean sync = synchronous(mode, "fencing.failover.modes");
    cluster.readyForKills(sync, WAIT);
    PostgresFixture.Database db =
        new PostgresFixture.Database(
            cluster.jdbcUrl(), cluster.user(), cluster.password(), "patroni");
    DataSource pool = db.pooledDataSource(2, Duration.ofSeconds(5));
    List<Fleet> fleets = new ArrayList<>();
    for (String variant : settings.variants()) {
      fleets.add(new Fleet(variant, mode, sync, db, pool, receiverSchema));
    }

    List<Fault> plan = new ArrayList<>();
    plan.addAll(Collections.nCopies(settings.kills(), Fault.KILL));
    plan.addAll(Collections.nCopies(settings.switchovers(), Fault.SWITCHOVER));
    Collections.shuffle(plan, random);

    List<Failover> failovers = new ArrayList<>();
    try {
      for (Fleet fleet : fleets) {
        fleet.start(cluster, receiverSchema);
      }
      for (Fleet fleet : fleets) {
        fleet.awaitReady();
      }
      for (Fault fault : plan) {
        cluster.heal(WAIT);
        cluster.switchSynchronousMode(sync, WAIT); // a rejoined node is the standby again
        for (Fleet fleet : fleets) {
          fleet.enqueue(payloads(settings.jobsPerFault()));
        }
        cluster.awaitReplicated(WAIT); // no enqueue is lost: the check is about claims and commits
        Thread.sleep(1_000 + random.nextInt(1_500)); // under load
        failovers.add(inject(cluster, fault, fleets));
      }
      for (Fleet fleet : fleets) {
        fleet.drainAndStop(pool);
      }
    } finally {
      fleets.forEach(Fleet::close);
    }
    Duration total = Duration.ofNanos(System.nanoTime() - started);
    List<ModeRun> runs = new ArrayList<>();
    for (Fleet fleet : fleets) {
      runs.add(fleet.judge(pool, receiverSchema, failovers, total));
    }
    return runs;
  }

  /**
   * Whether {@code mode} ({@code sync} or {@code async}, the value of system property {@code
   * property}) is synchronous: Patroni's synchronous mode and the library's.
   */
  static boolean synchronous(String mode, String property) {
    return switch (mode) {
      case "sync" -> true;
      case "async" -> false;
      default -> throw new IllegalArgumentException(property + ": no mode " + mode);
    };
  }

  /** One variant's workers, schema, receiver and jobs in one mode. */
  private final class Fleet implements AutoCloseable {
    private final String variant;
    private final String mode;
    private final boolean sync;
    private final String schema;
    private final String receiver;
    private final PostgresFencing fencing;
    private final FencedQueue queue;
    private final List<Long> enqueued = new ArrayList<>();
    private final List<JavaProcess> workers = new ArrayList<>();
    private final List<String> stopFailures = new ArrayList<>();
    private Duration drain = Duration.ZERO;

    Fleet(
        String variant,
        String mode,
        boolean sync,
        PostgresFixture.Database db,
        DataSource pool,
        TestSchema receiverSchema)
        throws SQLException {
      if (!variant.equals(REAL) && !variant.equals(NO_GENERATION)) {
        throw new IllegalArgumentException("fencing.failover.variants: no variant " + variant);
      }
      this.variant = variant;
      this.mode = mode;
      this.sync = sync;
      this.schema = db.freshSchema("failover_" + mode);
      // a receiver per schema: each numbers its jobs from 1, and the job id is the key
      this.receiver = "failover_" + variant.replace('-', '_') + "_" + mode;
      this.fencing =
          PostgresFencing.builder(pool).schema(schema).synchronousReplication(sync).build();
      this.queue = fencing.queue();
      if (generationOff()) {
        noGenerationFunction(pool);
      }
      PostgresFencing.builder(receiverSchema.dataSource())
          .schema(receiverSchema.name())
          .build()
          .receiver(receiver);
    }

    boolean generationOff() {
      return variant.equals(NO_GENERATION);
    }

    /** Starts the workers; {@link #awaitReady} waits for them, so that all start at once. */
    void start(PatroniCluster cluster, TestSchema receiverSchema) {
      for (int w = 0; w < settings.workers(); w++) {
        workers.add(startWorker(cluster, schema, receiverSchema, receiver, variant, mode, w));
      }
    }

    void awaitReady() {
      for (JavaProcess w : workers) {
        w.await(0, "ready"::equals, Duration.ofMinutes(1));
      }
    }

    void enqueue(List<String> payloads) {
      enqueued.addAll(queue.enqueueAll(QUEUE, payloads));
    }

    void drainAndStop(DataSource pool) throws InterruptedException {
      long drainStart = System.nanoTime();
      awaitDrained(fencing);
      drain = Duration.ofNanos(System.nanoTime() - drainStart);
      for (JavaProcess w : workers) {
        w.send("stop");
      }
      for (JavaProcess w : workers) {
        try {
          w.await(0, "stopped"::equals, settings.lease().multipliedBy(3).plusSeconds(30));
          // the first worker of a class path writes the class archive as it exits (SharedClasses):
          // 10 s were once too few for that on a loaded machine, after "stopped"
          int code = w.awaitExit(Duration.ofSeconds(60));
          if (code != 0) {
            stopFailures.add(w.name() + " exited " + code + "; stderr: " + w.stderr());
          }
        } catch (IllegalStateException e) {
          stopFailures.add(e.getMessage());
        }
      }
    }

    ModeRun judge(
        DataSource pool, TestSchema receiverSchema, List<Failover> failovers, Duration total)
        throws SQLException {
      List<FailoverChecks.Claim> claims = new ArrayList<>();
      List<FailoverChecks.Outcome> outcomes = new ArrayList<>();
      for (JavaProcess w : workers) {
        parse(w.name(), w.lines(), claims, outcomes);
      }
      FailoverChecks checks =
          new FailoverChecks(
              sync,
              enqueued,
              rows(queue, enqueued),
              receipts(receiverSchema, receiver),
              claims,
              outcomes,
              stopFailures);
      return new ModeRun(variant, mode, failovers, checks, drain, total, enqueued.size());
    }

    @Override
    public void close() {
      workers.forEach(JavaProcess::close);
    }
  }

  private JavaProcess startWorker(
      PatroniCluster cluster,
      String schema,
      TestSchema receiverSchema,
      String receiver,
      String variant,
      String mode,
      int w) {
    return FailoverWorkerMain.start(
        "w" + w,
        List.of(),
        cluster,
        schema,
        receiverSchema,
        receiver,
        QUEUE,
        OWNERS.get(w % OWNERS.size()),
        settings.lease(),
        settings.concurrency(),
        mode,
        variant);
  }

  private Failover inject(PatroniCluster cluster, Fault fault, List<Fleet> fleets) {
    int leader = cluster.leader();
    int replica = leader == 0 ? 1 : 0;
    long start;
    long writableAt;
    long lagBytes = 0;
    int killed = -1;
    // a session on the node to be promoted: when it takes its first write, to 10 ms
    try (WritableProbe probe = new WritableProbe(cluster, replica)) {
      if (fault == Fault.KILL) {
        // the WAL sender, stopped: what the leader writes from now on never reaches the replica
        long sender = Long.parseLong(cluster.query(leader, "select pid from pg_stat_replication"));
        Signals.send(sender, "STOP", "the leader's WAL sender");
        try {
          // at least the lag, and until the replica lacks a few pages of the workers' writes: on
          // a loaded machine one second of them can be nothing, and then no check can fail
          long until = System.nanoTime() + settings.lag().toNanos();
          long latest = until + MAX_LAG.toNanos();
          String received = cluster.query(replica, "select pg_last_wal_receive_lsn()");
          do {
            OsProcesses.pause(Duration.ofMillis(100));
            lagBytes =
                Long.parseLong(
                    cluster.query(
                        leader,
                        "select pg_wal_lsn_diff(pg_current_wal_lsn(), '"
                            + received
                            + "')::bigint"));
          } while (System.nanoTime() < latest
              && (System.nanoTime() < until || lagBytes < MIN_LAG_BYTES));
          start = System.currentTimeMillis();
          killed = cluster.killLeader();
        } finally {
          // a stopped process does not follow its postmaster; SIGKILL ends it, sending nothing
          Signals.send(sender, "KILL", "the leader's WAL sender");
        }
        writableAt = probe.awaitWritable(WAIT);
        cluster.awaitNewLeader(WAIT);
      } else {
        start = System.currentTimeMillis();
        CompletableFuture<Integer> switched = CompletableFuture.supplyAsync(cluster::switchover);
        writableAt = probe.awaitWritable(WAIT);
        switched.join();
      }
    }
    long writable = writableAt - start;
    long timeline = cluster.timeline();
    // timed on workers whose claims tell their generation
    List<JavaProcess> timed =
        fleets.stream().filter(f -> !f.generationOff()).flatMap(f -> f.workers.stream()).toList();
    OptionalLong claimed =
        timed.isEmpty()
            ? OptionalLong.empty()
            : OptionalLong.of(firstClaimOf(timeline - 1, timed, start) - start);
    if (killed >= 0) {
      cluster.startNode(killed); // it rejoins (pg_rewind) under load; the next fault heals first
    }
    Failover failover = new Failover(fault, lagBytes, writable, claimed, timeline);
    System.out.println("FailoverFaultTest: " + failover);
    return failover;
  }

  /**
   * The wall-clock time of the first handler start on a claim of {@code generation} at or after
   * {@code after} among {@code workers}' lines.
   */
  static long firstClaimOf(long generation, List<JavaProcess> workers, long after) {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (System.nanoTime() < deadline) {
      OptionalLong first =
          workers.stream()
              .flatMap(w -> w.lines().stream())
              .filter(line -> line.startsWith("claim\t"))
              .map(line -> line.split("\t"))
              .filter(f -> FailoverChecks.generation(Long.parseLong(f[2])) >= generation)
              .mapToLong(f -> Long.parseLong(f[3]))
              .filter(millis -> millis >= after)
              .min();
      if (first.isPresent()) {
        return first.getAsLong();
      }
      OsProcesses.pause(Duration.ofMillis(100));
    }
    throw new AssertionError(
        "no worker started a job of generation " + generation + " within " + WAIT);
  }

  /** Handlers of 20-300 ms. */
  private List<String> payloads(int count) {
    List<String> payloads = new ArrayList<>(count);
    for (int n = 0; n < count; n++) {
      payloads.add("{\"ms\": " + (20 + random.nextInt(281)) + "}");
    }
    return payloads;
  }

  private static void noGenerationFunction(DataSource pool) throws SQLException {
    String schema = FailoverWorkerMain.NO_GENERATION_SCHEMA;
    try (Connection c = pool.getConnection();
        Statement s = c.createStatement()) {
      s.execute("create schema if not exists " + schema);
      s.execute(
          "create or replace function "
              + schema
              + ".pg_walfile_name(pg_lsn) returns text language sql immutable"
              + " as $$ select '000000010000000000000001'::text $$");
    }
  }

  /** Waits until no job of the queue is pending or running (read by the operators' admin). */
  private static void awaitDrained(PostgresFencing fencing) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
    while (System.nanoTime() < deadline) {
      try {
        long open =
            fencing.admin().queues(false).stream()
                .filter(q -> q.queue().equals(QUEUE))
                .mapToLong(q -> q.pending() + q.running())
                .sum();
        if (open == 0) {
          return;
        }
      } catch (StoreUnavailableException e) {
        // the new primary may not take connections yet; ask again
      }
      Thread.sleep(250);
    }
    System.out.println("FailoverFaultTest: jobs still open after 3 minutes");
  }

  private static void parse(
      String worker,
      List<String> lines,
      List<FailoverChecks.Claim> claims,
      List<FailoverChecks.Outcome> outcomes) {
    for (String line : lines) {
      String[] f = line.split("\t", -1);
      switch (f[0]) {
        case "claim" ->
            claims.add(
                new FailoverChecks.Claim(
                    worker, Long.parseLong(f[1]), Long.parseLong(f[2]), Long.parseLong(f[3])));
        case "outcome" ->
            outcomes.add(
                new FailoverChecks.Outcome(
                    worker, f[1], Long.parseLong(f[2]), Long.parseLong(f[3]), f[4]));
        default -> {
          // ready, stats, stopped
        }
      }
    }
  }

  /**
   * The jobs {@code ids} as the queue reports them after the run, on either engine; a result's
   * epoch and owner are read from its {@code jsonb} text (the workers write both).
   */
  private static Map<Long, FailoverChecks.Row> rows(FencedQueue queue, List<Long> ids) {
    Map<Long, FailoverChecks.Row> rows = new HashMap<>();
    for (long id : ids) {
      queue
          .find(id)
          .ifPresent(
              job -> {
                String result = job.result();
                Matcher epoch = result == null ? null : RESULT_EPOCH.matcher(result);
                Matcher owner = result == null ? null : RESULT_OWNER.matcher(result);
                rows.put(
                    id,
                    new FailoverChecks.Row(
                        id,
                        job.state().dbName(),
                        job.epoch(),
                        job.owner(),
                        epoch != null && epoch.find() ? Long.parseLong(epoch.group(1)) : null,
                        owner != null && owner.find() ? owner.group(1) : null,
                        result));
              });
    }
    return rows;
  }

  /** The receiver's newest delivery per job, from the other database. */
  private static Map<Long, FailoverChecks.Receipt> receipts(
      TestSchema receiverSchema, String receiver) throws SQLException {
    Map<Long, FailoverChecks.Receipt> receipts = new HashMap<>();
    try (Connection c = receiverSchema.dataSource().getConnection();
        PreparedStatement s =
            c.prepareStatement(
                "select key, epoch, payload::text from \""
                    + receiverSchema.name()
                    + "\".fencing_receipt where receiver = ?")) {
      s.setString(1, receiver);
      try (ResultSet r = s.executeQuery()) {
        while (r.next()) {
          long job = Long.parseLong(r.getString(1));
          receipts.put(job, new FailoverChecks.Receipt(r.getLong(2), r.getString(3)));
        }
      }
    }
    return receipts;
  }
}
