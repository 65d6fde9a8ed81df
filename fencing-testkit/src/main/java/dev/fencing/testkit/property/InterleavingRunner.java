package dev.fencing.testkit.property;

import dev.fencing.FencedQueue;
import dev.fencing.FencedReceiver;
import dev.fencing.JobSnapshot;
import dev.fencing.QueueLimits;
import dev.fencing.testkit.db.PostgresFixture;
import dev.fencing.testkit.process.FencingBackend;
import dev.fencing.testkit.process.WorkerProcess;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * Runs {@link Interleaving}s against real worker processes and checks the {@link Invariant}s after
 * every action. Processes are pooled across interleavings; each interleaving gets a queue of its
 * own, so nothing is reset between tries. Lease expiry is real: short leases are waited out on the
 * database clock.
 *
 * <pre>{@code
 * try (InterleavingRunner runner =
 *     new InterleavingRunner(PostgresFixture.get(), MyBackend.class, "props")) {
 *   runner.run(interleaving).assertHolds();
 * }
 * }</pre>
 *
 * Not thread-safe: one interleaving at a time.
 *
 * @since 0.1
 */
public final class InterleavingRunner implements AutoCloseable {

  /** The lease of a {@code Claim} step with a short lease. */
  public static final Duration SHORT_LEASE = Duration.ofMillis(200);

  /**
   * The lease of a {@code Claim} step with a long lease: it never runs out during an interleaving.
   */
  public static final Duration LONG_LEASE = Duration.ofMinutes(2);

  private final DataSource pool;
  private final String schema;
  private final @Nullable ValidLeaseCount storeCount;
  private final FencedQueue queue;
  private final FencedReceiver receiver;
  private final WorkerPool workers;
  private int runs;

  /**
   * Prepares {@code schema} (dropped and recreated) and the worker pool.
   *
   * @param backend the backend under test; worker processes load it by class name
   */
  public InterleavingRunner(
      PostgresFixture.Database database, Class<? extends FencingBackend> backend, String schema) {
    database.recreateSchema(schema);
    this.pool = database.pooledDataSource(4);
    this.schema = schema;
    FencingBackend local = FencingBackend.load(backend.getName());
    this.storeCount = local instanceof ValidLeaseCount count ? count : null;
    this.queue = local.queue(pool, schema);
    this.receiver = local.receiver(pool, schema);
    this.workers = new WorkerPool(backend, database, schema);
  }

  /**
   * Runs {@code interleaving} to its end and returns what it showed. Violations of invariants are
   * returned, not thrown.
   *
   * @throws InterleavingAbortedException if a worker died unexpectedly, reported an error, or the
   *     database went away; every process has been killed
   */
  public Execution run(Interleaving interleaving) {
    return runWith(interleaving, null);
  }

  /**
   * Runs {@code interleaving} as {@link #run(Interleaving)} does, on a queue with a running limit
   * of {@code maxRunning} ({@link dev.fencing.FencedQueue#setLimits}), and checks after every
   * action that the jobs whose leases are valid never outnumber it ({@link
   * Invariant#VALID_LEASES_WITHIN_LIMIT}): counted by the store when the backend is a {@link
   * ValidLeaseCount}, and from the jobs' snapshots in any case. The limit is lifted before the end
   * checks.
   *
   * @throws IllegalArgumentException if {@code maxRunning} is outside 1 .. {@value
   *     QueueLimits#MAX_RUNNING}
   * @throws InterleavingAbortedException as {@link #run(Interleaving)} does
   */
  public Execution run(Interleaving interleaving, int maxRunning) {
    QueueLimits.maxRunning(maxRunning);
    return runWith(interleaving, maxRunning);
  }

  private Execution runWith(Interleaving interleaving, @Nullable Integer maxRunning) {
    runs++;
    String queueName = "s" + runs;
    List<Long> jobs =
        queue.enqueueAll(queueName, java.util.Collections.nCopies(interleaving.jobs(), "{}"));
    RunningLimitWatch limit =
        maxRunning == null
            ? null
            : new RunningLimitWatch(queue, pool, schema, storeCount, queueName, maxRunning);
    Oracle oracle = new Oracle(jobs, this::snapshot);
    Run run = new Run(interleaving, queueName, oracle, limit);
    try {
      if (limit != null) {
        run.timeline.add("setup: " + limit.set());
      }
      run.execute();
      if (limit != null) {
        limit.lift();
      }
      oracle.finish(queue, queueName);
      return new Execution(interleaving, run.timeline, oracle.violations());
    } catch (RuntimeException e) {
      workers.killAll();
      throw new InterleavingAbortedException(
          "interleaving aborted at step "
              + run.step
              + " ("
              + (run.step > 0 ? interleaving.steps().get(run.step - 1) : "setup")
              + "): "
              + e.getMessage()
              + "\ntimeline so far:\n  "
              + String.join("\n  ", run.timeline)
              + "\ninterleaving: "
              + interleaving,
          e);
    }
  }

  /** Returns how many worker JVMs were started so far (pool and crash replacements). */
  public int processesStarted() {
    return workers.started();
  }

  /** Returns the operating system ids of every worker process started so far, alive or not. */
  public List<Long> pidsStarted() {
    return workers.pidsStarted();
  }

  /** Returns the operating system ids of the worker processes alive now. */
  public List<Long> livePids() {
    return workers.processes().stream()
        .filter(WorkerProcess::isAlive)
        .map(WorkerProcess::pid)
        .toList();
  }

  /** Kills every worker process. */
  @Override
  public void close() {
    workers.close();
    if (pool instanceof AutoCloseable closeable) {
      try {
        closeable.close();
      } catch (Exception ignored) {
        // closing a pool fails only if it is closed already
      }
    }
  }

  private Oracle.State snapshot(long jobId) {
    JobSnapshot job = queue.find(jobId).orElse(null);
    FencedReceiver.Receipt receipt = receiver.newest(Long.toString(jobId)).orElse(null);
    return new Oracle.State(job, receipt);
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

  /** One interleaving's execution: the workers' state and the timeline. */
  private final class Run {
    private final Interleaving interleaving;
    private final String queueName;
    private final Oracle oracle;
    private final @Nullable RunningLimitWatch limit;
    private final List<String> timeline = new ArrayList<>();
    private final List<WorkerState> states = new ArrayList<>();
    private int step;

    Run(
        Interleaving interleaving,
        String queueName,
        Oracle oracle,
        @Nullable RunningLimitWatch limit) {
      this.interleaving = interleaving;
      this.queueName = queueName;
      this.oracle = oracle;
      this.limit = limit;
    }

    void execute() {
      for (int w = 0; w < interleaving.workers(); w++) {
        WorkerProcess process = workers.get(w);
        expectOk(process, "reset");
        states.add(new WorkerState(w, process, "w" + w + "_" + queueName));
      }
      for (Step s : interleaving.steps()) {
        step++;
        apply(s);
      }
      step = 0;
      for (WorkerState state : states) {
        if (state.frozen) {
          resume(state);
        }
      }
    }

    private void apply(Step s) {
      WorkerState w = states.get(s.actor());
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
          w.process = workers.crashAndReplace(s.actor());
          w.frozen = false;
          w.deferred.clear();
          w.leases.clear();
          w.restarts++;
          w.owner = "w" + s.actor() + "_" + queueName + "_r" + w.restarts;
          expectOk(w.process, "reset");
          note(w, "SIGKILL: crashed; a fresh process takes its place as " + w.owner);
        }
        case Step.LeasesRunOut wait -> waitLeasesOut();
        default -> {
          if (w.frozen) {
            w.deferred.add(s);
            note(w, "is frozen; '" + s + "' waits until it resumes");
          } else {
            act(w, s);
          }
        }
      }
    }

    private void resume(WorkerState w) {
      w.process.thaw();
      w.frozen = false;
      note(w, "SIGCONT: resumes, still holding " + w.describeLeases());
      List<Step> pending = new ArrayList<>(w.deferred);
      w.deferred.clear();
      for (Step s : pending) {
        act(w, s);
      }
    }

    private void act(WorkerState w, Step s) {
      if (s instanceof Step.Claim claim) {
        Duration length = claim.shortLease() ? SHORT_LEASE : LONG_LEASE;
        String reply = send(w, "claim " + queueName + " " + w.owner + " " + length.toMillis(), -1);
        if (reply.startsWith("ok claimed")) {
          String[] parts = reply.split(" ");
          Held held =
              new Held(
                  Long.parseLong(parts[2]),
                  Long.parseLong(parts[3]),
                  length,
                  Long.parseLong(parts[4]));
          // an older lease of the same job stays: the same owner may still try to use it
          w.leases.add(held);
          oracle.claimed(step, held.jobId, held.epoch);
        }
        return;
      }
      if (w.leases.isEmpty()) {
        note(w, "holds no lease: '" + s + "' does nothing");
        return;
      }
      int index =
          switch (s) {
            case Step.Renew r -> r.lease();
            case Step.Deliver d -> d.lease();
            case Step.Complete c -> c.lease();
            case Step.Fail f -> f.lease();
            default -> throw new IllegalStateException("not an action: " + s);
          };
      Held held = w.leases.get(index % w.leases.size());
      switch (s) {
        case Step.Deliver d -> deliver(w, held);
        case Step.Complete c -> {
          if (!held.delivered) {
            deliver(w, held);
          }
          commit(w, held, "complete " + held.ref());
        }
        case Step.Fail f -> commit(w, held, "fail " + held.ref() + " 0 handler failed");
        case Step.Renew r -> {
          String reply = commit(w, held, "renew " + held.ref() + " " + held.length.toMillis());
          if (reply.startsWith("ok renewed")) {
            held.expiresMillis = Long.parseLong(reply.split(" ")[3]);
          }
        }
        default -> throw new IllegalStateException("not an action: " + s);
      }
    }

    private void deliver(WorkerState w, Held held) {
      oracle.delivering(held.jobId, held.epoch);
      send(w, "deliver " + held.ref(), held.jobId);
      held.delivered = true;
    }

    private String commit(WorkerState w, Held held, String command) {
      Oracle.State before = oracle.current(held.jobId);
      String reply = send(w, command, held.jobId);
      oracle.committed(
          step, held.jobId, held.epoch, w.owner, command.split(" ", 2)[0], before, reply);
      return reply;
    }

    private String send(WorkerState w, String command, long jobId) {
      String reply = w.process.call(command);
      if (reply.startsWith("error")) {
        throw new IllegalStateException(
            "w" + w.index + " (pid " + w.process.pid() + ") reported: " + reply);
      }
      String where = jobId < 0 ? "" : " [job " + jobId + "]";
      timeline.add(label() + "w" + w.index + where + ": " + command + " -> " + reply);
      observe();
      return reply;
    }

    private void waitLeasesOut() {
      long until =
          states.stream()
              .flatMap(w -> w.leases.stream())
              .filter(h -> h.length.equals(SHORT_LEASE))
              .mapToLong(h -> h.expiresMillis)
              .max()
              .orElse(Long.MIN_VALUE);
      long now = databaseMillis();
      if (until == Long.MIN_VALUE || now >= until) {
        timeline.add(label() + "time passes: no short lease left to run out");
        return;
      }
      while (now < until) {
        sleep(until - now + 1);
        now = databaseMillis();
      }
      timeline.add(label() + "time passes: every short lease ran out on the database clock");
      observe();
    }

    /** Reads every job after an action; under a limit, counts the valid leases too. */
    private void observe() {
      if (limit == null) {
        oracle.observe(step);
        return;
      }
      Instant before = limit.now();
      oracle.observe(step);
      limit.check(step, before, oracle.currentStates(), oracle);
    }

    private void note(WorkerState w, String what) {
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
  private static final class WorkerState {
    final int index;
    final List<Held> leases = new ArrayList<>();
    final List<Step> deferred = new ArrayList<>();
    WorkerProcess process;
    String owner;
    boolean frozen;
    int restarts;

    WorkerState(int index, WorkerProcess process, String owner) {
      this.index = index;
      this.process = process;
      this.owner = owner;
    }

    String describeLeases() {
      return leases.isEmpty()
          ? "no lease"
          : leases.stream().map(h -> "job " + h.jobId + " @ epoch " + h.epoch).toList().toString();
    }
  }

  /** A lease as the worker believes it holds it. */
  private static final class Held {
    final long jobId;
    final long epoch;
    final Duration length;
    long expiresMillis;
    boolean delivered;

    Held(long jobId, long epoch, Duration length, long expiresMillis) {
      this.jobId = jobId;
      this.epoch = epoch;
      this.length = length;
      this.expiresMillis = expiresMillis;
    }

    /** How the worker process names this lease. */
    String ref() {
      return jobId + "@" + epoch;
    }
  }
}
