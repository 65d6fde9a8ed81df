package dev.fencing.demo;

import dev.fencing.FencedQueue;
import dev.fencing.testkit.db.PostgresFixture;
import dev.fencing.testkit.process.FencingBackend;
import dev.fencing.testkit.process.WorkerProcess;
import dev.fencing.testkit.property.Step;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;

/**
 * Runs {@link FifoPerGroupInterleaving}s against real worker processes (the kit's {@code
 * PuppetWorker}, one JVM each, frozen with {@code SIGSTOP}, killed with {@code SIGKILL}) on a queue
 * limited to one (or two) jobs at a time per group, first in first out, and has a {@link
 * FifoPerGroupOracle} check the {@link FifoPerGroupExecution.Invariant}s after every action. Each
 * interleaving gets a queue of its own: its limits are set, then its jobs enqueued one by one with
 * their groups and priorities; then the steps run. Hand-outs are passed on as the workers report
 * them.
 *
 * <p>Worker processes are kept across interleavings; a crashed one is replaced by a fresh JVM. The
 * limits are set through the queue of a backend the caller names ({@link #run(
 * FifoPerGroupInterleaving, Class)}), so that a broken variant that stores other limits runs on the
 * same workers: the workers only claim and commit. Not thread-safe: one interleaving at a time.
 */
final class FifoPerGroupRunner implements AutoCloseable {

  /** The lease of a claim with a short lease, waited out when time passes. */
  static final Duration SHORT_LEASE = Duration.ofMillis(200);

  /** The lease of a claim with a long lease: it never runs out during an interleaving. */
  static final Duration LONG_LEASE = Duration.ofMinutes(2);

  private final PostgresFixture.Database database;
  private final Class<? extends FencingBackend> backend;
  private final String schema;
  private final DataSource pool;
  private final FencedQueue queue;
  private final Map<Class<?>, FencedQueue> limitSetters = new HashMap<>();
  private final List<WorkerProcess> live = new ArrayList<>();
  private int started;
  private int runs;

  /**
   * Prepares {@code schema} (dropped and recreated); worker processes start on first use.
   *
   * @param backend the engine under test, which the workers run
   */
  FifoPerGroupRunner(
      PostgresFixture.Database database, Class<? extends FencingBackend> backend, String schema) {
    this.database = database;
    this.backend = backend;
    this.schema = schema;
    database.recreateSchema(schema);
    this.pool = database.pooledDataSource(4);
    this.queue = FencingBackend.load(backend.getName()).queue(pool, schema);
    limitSetters.put(backend, queue);
  }

  /** Runs {@code interleaving} with the limits set through the engine's own queue. */
  FifoPerGroupExecution run(FifoPerGroupInterleaving interleaving) {
    return run(interleaving, backend);
  }

  /**
   * Runs {@code interleaving} with its limits set through {@code limitsBy}'s queue, on this
   * runner's workers, and returns what it showed. Violations are returned, not thrown.
   *
   * @throws IllegalStateException if a worker died unexpectedly or reported an error, or the
   *     database went away; every worker process has been killed
   */
  FifoPerGroupExecution run(
      FifoPerGroupInterleaving interleaving, Class<? extends FencingBackend> limitsBy) {
    runs++;
    String queueName = "g" + runs;
    limitSetters
        .computeIfAbsent(limitsBy, b -> FencingBackend.load(b.getName()).queue(pool, schema))
        .setLimits(queueName, interleaving.limits());
    Run run = new Run(interleaving, queueName);
    try {
      run.execute();
      return new FifoPerGroupExecution(interleaving, run.timeline, run.oracle.violations());
    } catch (RuntimeException e) {
      killAll();
      throw new IllegalStateException(
          "interleaving aborted at step "
              + run.step
              + ": "
              + e.getMessage()
              + "\ntimeline so far:\n  "
              + String.join("\n  ", run.timeline)
              + "\ninterleaving: "
              + interleaving,
          e);
    }
  }

  /** Returns how many worker JVMs were started so far (the pool's and crash replacements). */
  int processesStarted() {
    return started;
  }

  /** Kills every worker process. */
  @Override
  public void close() {
    killAll();
    if (pool instanceof AutoCloseable closeable) {
      try {
        closeable.close();
      } catch (Exception ignored) {
        // closing a pool fails only if it is closed already
      }
    }
  }

  private WorkerProcess worker(int index) {
    while (live.size() <= index) {
      live.add(startWorker());
    }
    if (!live.get(index).isAlive()) {
      live.get(index).close();
      live.set(index, startWorker());
    }
    return live.get(index);
  }

  private WorkerProcess crashAndReplace(int index) {
    WorkerProcess dead = worker(index);
    dead.crash();
    dead.close();
    live.set(index, startWorker());
    return live.get(index);
  }

  private WorkerProcess startWorker() {
    if (started == 0) {
      WorkerProcess.warmUp(backend, database, schema);
    }
    started++;
    return WorkerProcess.start("fifo-worker-" + started, backend, database, schema);
  }

  private void killAll() {
    live.forEach(WorkerProcess::close);
    live.clear();
  }

  private long databaseMillis() {
    try (Connection c = pool.getConnection();
        ResultSet r =
            c.createStatement()
                .executeQuery("select (extract(epoch from clock_timestamp()) * 1000)::bigint")) {
      r.next();
      return r.getLong(1);
    } catch (SQLException e) {
      throw new IllegalStateException("the database went away: " + e.getMessage(), e);
    }
  }

  /** One interleaving's execution: its jobs, the workers' state, the timeline and the checks. */
  private final class Run {
    private final FifoPerGroupInterleaving interleaving;
    private final String queueName;
    private final List<String> timeline = new ArrayList<>();
    private final List<Slot> slots = new ArrayList<>();
    private FifoPerGroupOracle oracle;
    private int step;

    Run(FifoPerGroupInterleaving interleaving, String queueName) {
      this.interleaving = interleaving;
      this.queueName = queueName;
    }

    void execute() {
      Map<Long, FifoPerGroupInterleaving.GroupedJob> jobs = new LinkedHashMap<>();
      long last = 0;
      for (FifoPerGroupInterleaving.GroupedJob job : interleaving.jobs()) {
        long id = queue.enqueue(queueName, "{}", job.options());
        if (id <= last) {
          throw new IllegalStateException("job ids must grow, but " + id + " came after " + last);
        }
        last = id;
        jobs.put(id, job);
      }
      timeline.add("enqueued " + jobs + " (id=group/priority)");
      oracle =
          new FifoPerGroupOracle(
              interleaving.runningPerGroup(),
              jobs,
              queue,
              FifoPerGroupRunner.this::databaseMillis,
              line -> timeline.add(label() + line));
      for (int w = 0; w < interleaving.run().workers(); w++) {
        WorkerProcess process = worker(w);
        expectOk(process, "reset");
        slots.add(new Slot(w, process, "w" + w + "_" + queueName));
      }
      oracle.observe(step);
      for (Step s : interleaving.steps()) {
        step++;
        apply(s);
      }
      for (Slot slot : slots) {
        if (slot.frozen) {
          resume(slot);
        }
      }
    }

    private void apply(Step s) {
      Slot w = slots.get(s.actor());
      switch (s) {
        case Step.Stall stall -> {
          if (!w.frozen) {
            w.process.freeze();
            w.frozen = true;
            note(w, "SIGSTOP: frozen");
          }
        }
        case Step.Resume resume -> {
          if (w.frozen) {
            resume(w);
          }
        }
        case Step.Crash crash -> {
          w.process = crashAndReplace(w.index);
          w.frozen = false;
          w.deferred.clear();
          w.leases.clear();
          w.restarts++;
          w.owner = "w" + w.index + "_" + queueName + "_r" + w.restarts;
          expectOk(w.process, "reset");
          note(w, "SIGKILL: crashed; a fresh process takes its place as " + w.owner);
        }
        case Step.LeasesRunOut wait -> timePasses();
        default -> {
          if (w.frozen) {
            w.deferred.add(s);
            note(w, "is frozen; '" + FifoPerGroupInterleaving.describe(s) + "' waits");
          } else {
            act(w, s);
          }
        }
      }
    }

    private void resume(Slot w) {
      w.process.thaw();
      w.frozen = false;
      note(w, "SIGCONT: resumes, still holding " + w.leases);
      List<Step> pending = new ArrayList<>(w.deferred);
      w.deferred.clear();
      pending.forEach(s -> act(w, s));
    }

    private void act(Slot w, Step s) {
      if (s instanceof Step.Claim claim) {
        Duration length = claim.shortLease() ? SHORT_LEASE : LONG_LEASE;
        String reply = send(w, "claim " + queueName + " " + w.owner + " " + length.toMillis());
        if (reply.startsWith("ok claimed")) {
          String[] parts = reply.split(" ");
          Held held =
              new Held(
                  Long.parseLong(parts[2]),
                  Long.parseLong(parts[3]),
                  claim.shortLease(),
                  Long.parseLong(parts[4]));
          // an older lease of the same job stays: the same owner may still try to use it
          w.leases.add(held);
          oracle.handedOut(step, held.jobId, held.epoch);
        } else {
          oracle.observe(step);
        }
        return;
      }
      if (w.leases.isEmpty()) {
        note(w, "holds no lease: '" + FifoPerGroupInterleaving.describe(s) + "' does nothing");
        return;
      }
      int index =
          switch (s) {
            case Step.Complete c -> c.lease();
            case Step.Fail f -> f.lease();
            case Step.Renew r -> r.lease();
            case Step.Deliver d -> d.lease();
            default -> throw new IllegalStateException("not an action: " + s);
          };
      Held held = w.leases.get(index % w.leases.size());
      String command =
          switch (s) {
            case Step.Complete c -> "complete " + held;
            case Step.Fail f -> "fail " + held + " 0 handler failed";
            case Step.Renew r ->
                "fail " + held + " " + FifoPerGroupInterleaving.RETRY_DELAY_MILLIS + " later";
            case Step.Deliver d -> "release " + held;
            default -> throw new IllegalStateException("not an action: " + s);
          };
      String reply = send(w, command);
      if (reply.startsWith("ok accepted") && !(s instanceof Step.Complete)) {
        oracle.givenBack(held.jobId);
      }
      oracle.observe(step);
    }

    /** Waits until every short lease held and every retry delay has run out on the database. */
    private void timePasses() {
      long until = Long.MIN_VALUE;
      for (Slot slot : slots) {
        for (Held held : slot.leases) {
          if (held.shortLease) {
            until = Math.max(until, held.expiresMillis);
          }
        }
      }
      until = Math.max(until, oracle.lastDueMillis());
      long now = databaseMillis();
      if (now >= until) {
        timeline.add(label() + "time passes: nothing left to run out");
        return;
      }
      while (now < until) {
        sleep(until - now + 1);
        now = databaseMillis();
      }
      timeline.add(label() + "time passes: every short lease and retry delay ran out");
      oracle.observe(step);
    }

    private String send(Slot w, String command) {
      String reply = w.process.call(command);
      if (reply.startsWith("error")) {
        throw new IllegalStateException(
            "w" + w.index + " (pid " + w.process.pid() + ") reported: " + reply);
      }
      timeline.add(label() + "w" + w.index + ": " + command + " -> " + reply);
      return reply;
    }

    private void note(Slot w, String what) {
      timeline.add(label() + "w" + w.index + " " + what);
    }

    private String label() {
      return step > 0 ? step + ". " : "end. ";
    }

    private void expectOk(WorkerProcess process, String command) {
      String reply = process.call(command);
      if (!reply.startsWith("ok")) {
        throw new IllegalStateException(process.name() + " answered '" + reply + "' to " + command);
      }
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(Math.max(1, millis));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  /** A worker slot during one interleaving. */
  private static final class Slot {
    final int index;
    final List<Held> leases = new ArrayList<>();
    final List<Step> deferred = new ArrayList<>();
    WorkerProcess process;
    String owner;
    boolean frozen;
    int restarts;

    Slot(int index, WorkerProcess process, String owner) {
      this.index = index;
      this.process = process;
      this.owner = owner;
    }
  }

  /** A lease as the worker believes it holds it; prints as the worker names it. */
  private record Held(long jobId, long epoch, boolean shortLease, long expiresMillis) {
    @Override
    public String toString() {
      return jobId + "@" + epoch;
    }
  }
}
