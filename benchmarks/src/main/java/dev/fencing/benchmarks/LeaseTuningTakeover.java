package dev.fencing.benchmarks;

import com.zaxxer.hikari.HikariDataSource;
import dev.fencing.Epoch;
import dev.fencing.FencedOutcome;
import dev.fencing.FencedQueue;
import dev.fencing.FencedReceiver;
import dev.fencing.Job;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.testkit.db.PostgresFixture;
import dev.fencing.testkit.process.FencingBackend;
import dev.fencing.testkit.process.WorkerProcess;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import javax.sql.DataSource;

/**
 * Takeover delay, for real: a worker process claims a job, heartbeats once, and is killed with
 * {@code SIGKILL} at a random moment of its next heartbeat interval; a rescuer in this JVM polls
 * claim every 10 ms until it gets the job. The kill and the reclaim are read on the database clock.
 */
final class LeaseTuningTakeover implements AutoCloseable {

  /** How often the rescuer tries to claim. */
  static final Duration POLL = Duration.ofMillis(10);

  /**
   * One kill.
   *
   * @param remaining how much of the lease was left when the worker died
   * @param takeover from the kill to the rescuer's claim
   */
  record Kill(Duration lease, Duration remaining, Duration takeover) {}

  private record Trial(Duration lease, String queue, WorkerProcess worker, double phase) {}

  private final List<Trial> trials;
  private final HikariDataSource pool;
  private final FencedQueue rescuer;
  private final ExecutorService threads =
      Executors.newThreadPerTaskExecutor(Thread.ofPlatform().daemon().factory());

  private LeaseTuningTakeover(List<Trial> trials, HikariDataSource pool, FencedQueue rescuer) {
    this.trials = trials;
    this.pool = pool;
    this.rescuer = rescuer;
  }

  /**
   * Enqueues one job per kill and starts one worker process per kill, all in parallel; returns when
   * every worker is ready.
   */
  static LeaseTuningTakeover start(
      PostgresFixture.Database db, String schema, List<Duration> leases, int kills, long seed) {
    HikariDataSource pool = BenchDatabase.pool(db, Math.max(1, leases.size() * kills));
    FencedQueue queue = PostgresFencing.builder(pool).schema(schema).install(false).build().queue();
    Random random = new Random(seed);
    List<Future<Trial>> starting = new ArrayList<>();
    try (ExecutorService starter = Executors.newVirtualThreadPerTaskExecutor()) {
      for (int i = 0; i < leases.size(); i++) {
        for (int k = 0; k < kills; k++) {
          Duration lease = leases.get(i);
          String name = "takeover_" + i + "_" + k;
          // one kill in each slice of the heartbeat interval, so that few kills still cover it
          double phase = (k + random.nextDouble()) / kills;
          queue.enqueue(name, "{}");
          starting.add(starter.submit(() -> trial(db, schema, lease, name, phase)));
        }
      }
    }
    LeaseTuningTakeover takeover = new LeaseTuningTakeover(new ArrayList<>(), pool, queue);
    RuntimeException failure = null;
    for (Future<Trial> trial : starting) {
      if (trial.state() == Future.State.SUCCESS) {
        takeover.trials.add(trial.resultNow());
      } else if (failure == null) {
        failure = new IllegalStateException("a worker process did not start", trial.exceptionNow());
      }
    }
    if (failure != null) {
      takeover.close();
      throw failure;
    }
    return takeover;
  }

  private static Trial trial(
      PostgresFixture.Database db, String schema, Duration lease, String name, double phase) {
    WorkerProcess worker = WorkerProcess.start(name, Backend.class, db, schema);
    // its pool connects on first use, within 2 s: connect now, while nothing is timed
    String reply = "";
    for (int attempt = 0; attempt < 5 && !reply.equals("ok none"); attempt++) {
      reply = worker.call("claim warmup warmup " + lease.toMillis());
    }
    if (!reply.equals("ok none")) {
      worker.close();
      throw new IllegalStateException("worker " + name + " could not claim: " + reply);
    }
    return new Trial(lease, name, worker, phase);
  }

  /** Kills every worker, each on its own thread, and completes with one {@link Kill} each. */
  CompletableFuture<List<Kill>> measure(int heartbeatsPerLease) {
    List<CompletableFuture<Kill>> runs =
        trials.stream()
            .map(t -> CompletableFuture.supplyAsync(() -> kill(t, heartbeatsPerLease), threads))
            .toList();
    return CompletableFuture.allOf(runs.toArray(CompletableFuture[]::new))
        .thenApply(done -> runs.stream().map(CompletableFuture::join).toList());
  }

  private Kill kill(Trial t, int heartbeatsPerLease) {
    Duration beat = t.lease().dividedBy(heartbeatsPerLease);
    long leaseMs = t.lease().toMillis();
    String[] claimed = expect(t, "claim " + t.queue() + " doomed " + leaseMs, "ok claimed");
    sleep(beat);
    String[] renewed = expect(t, "renew " + claimed[2] + " " + leaseMs, "ok renewed");
    Instant expiresAt = Instant.ofEpochMilli(Long.parseLong(renewed[3]));
    sleep(Duration.ofNanos((long) (beat.toNanos() * t.phase())));
    t.worker().crash();
    Instant killedAt = databaseNow(pool);
    Instant reclaimedAt = reclaim(t);
    return new Kill(
        t.lease(), Duration.between(killedAt, expiresAt), Duration.between(killedAt, reclaimedAt));
  }

  private static String[] expect(Trial t, String command, String prefix) {
    String reply = t.worker().call(command);
    if (!reply.startsWith(prefix)) {
      throw new IllegalStateException(
          "worker " + t.worker().name() + " answered '" + reply + "' to '" + command + "'");
    }
    return reply.split(" ");
  }

  private Instant reclaim(Trial t) {
    long deadline = System.nanoTime() + t.lease().plusSeconds(30).toNanos();
    while (System.nanoTime() < deadline) {
      Optional<Job> job = rescuer.claim(t.queue(), "rescuer", t.lease());
      if (job.isPresent()) {
        // the claim set expiresAt to its own now() + lease: now() is when it took the job
        return job.get().lease().expiresAt().minus(t.lease());
      }
      sleep(POLL);
    }
    throw new IllegalStateException(
        "nobody could reclaim the job of " + t.queue() + " within its lease + 30 s");
  }

  /** Returns the database's clock, now. */
  static Instant databaseNow(DataSource ds) {
    try (Connection c = ds.getConnection();
        PreparedStatement s = c.prepareStatement("select clock_timestamp()");
        ResultSet r = s.executeQuery()) {
      r.next();
      return r.getObject(1, OffsetDateTime.class).toInstant();
    } catch (SQLException e) {
      throw new IllegalStateException("reading the database clock: " + e, e);
    }
  }

  private static void sleep(Duration d) {
    try {
      Thread.sleep(d);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  @Override
  public void close() {
    trials.forEach(t -> t.worker().close());
    threads.shutdownNow();
    pool.close();
  }

  /** What the worker processes run: the PostgreSQL queue; they call no receiver. */
  public static final class Backend implements FencingBackend {

    /** Loaded by class name in the worker process. */
    public Backend() {}

    @Override
    public FencedQueue queue(DataSource dataSource, String schema) {
      return PostgresFencing.builder(dataSource).schema(schema).install(false).build().queue();
    }

    @Override
    public FencedReceiver receiver(DataSource dataSource, String schema) {
      return new FencedReceiver() {
        @Override
        public dev.fencing.FencedOutcome fence(String key, dev.fencing.Epoch epoch) {
          throw new UnsupportedOperationException("the takeover benchmark fences nothing");
        }

        @Override
        public FencedOutcome deliver(String key, Epoch epoch, String payload) {
          throw new UnsupportedOperationException("the takeover benchmark delivers nothing");
        }

        @Override
        public Optional<Receipt> newest(String key) {
          return Optional.empty();
        }
      };
    }
  }
}
