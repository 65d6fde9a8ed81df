package dev.fencing.benchmarks;

import com.zaxxer.hikari.HikariDataSource;
import dev.fencing.FencedQueue;
import dev.fencing.Job;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.testkit.db.PostgresFixture;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

/**
 * A spike for issue 22 (an append-only claim engine), not a feature: how much database and client
 * CPU the hot path of today's engine costs per job, against a prototype of the append-only design
 * written as plain SQL, in one run on one server. Both run the same loop with no handler work, so
 * the figures are the engines' own cost: producers keep 4,000 jobs enqueued in batches of 100;
 * worker threads claim a batch, and commit it at once.
 *
 * <ul>
 *   <li>{@code today}: the library's PostgreSQL queue ({@code enqueueAll}, {@code claimBatch},
 *       {@code completeAll}), notifications off.
 *   <li>{@code log}: jobs are inserted once and never updated. A claim takes the next jobs of a
 *       per-queue window between two snapshots (PgQ's design: the jobs whose transactions are
 *       visible in the newer snapshot and not in the older, so no job of a transaction still open
 *       is skipped), in one row per claimed batch that carries the lease, the owner and the epoch
 *       (one global sequence, so every claim's epoch is above every earlier one and a job's token
 *       only goes up); a commit checks owner, epoch and lease on that row (compare-and-set) and
 *       appends one row per job to a completion table. No reclaim, retry or retention: the steady
 *       state's hot path only.
 * </ul>
 *
 * <p>Arguments: {@code --seconds} (measured, per run; default 20), {@code --warmup} (10), {@code
 * --threads} (4,16,64), {@code --batch} (100), {@code --engines} (today,log; {@code append} is the
 * library's append-only engine). The database is {@code FENCING_JDBC_URL}, else an embedded
 * PostgreSQL. CPU is read from /proc: every process named {@code postgres} on the machine (run
 * nothing else), and this JVM.
 */
public final class EngineSpike {

  private static final int DEPTH = 4_000;
  private static final int ENQUEUE_BATCH = 100;

  /** What one run measured. */
  record Run(
      String engine,
      int threads,
      long jobs,
      Duration measured,
      long postgresCpuNanos,
      long jvmCpuNanos,
      long errors) {

    double jobsPerSecond() {
      return jobs / (measured.toNanos() / 1e9);
    }

    double postgresMicrosPerJob() {
      return jobs == 0 ? Double.NaN : postgresCpuNanos / 1e3 / jobs;
    }

    double jvmMicrosPerJob() {
      return jobs == 0 ? Double.NaN : jvmCpuNanos / 1e3 / jobs;
    }
  }

  private EngineSpike() {}

  public static void main(String[] args) throws Exception {
    int seconds = Args.intArg(args, "--seconds", 20);
    int warmup = Args.intArg(args, "--warmup", 10);
    int batch = Args.intArg(args, "--batch", 100);
    List<Integer> threads =
        Stream.of(Args.stringArg(args, "--threads", "4,16,64").split(","))
            .map(Integer::parseInt)
            .toList();
    List<String> engines = List.of(Args.stringArg(args, "--engines", "today,log").split(","));
    PostgresFixture.Database db = BenchDatabase.database();
    List<Run> runs = new ArrayList<>();
    for (int t : threads) {
      for (String name : engines) {
        SpikeEngine engine =
            switch (name) {
              case "today" -> new Today("today", PostgresFencing.Engine.UPDATE_IN_PLACE);
              case "append" -> new Today("append", PostgresFencing.Engine.APPEND_ONLY);
              case "log" -> new LogEnginePrototype();
              default -> throw new IllegalArgumentException("--engines: no engine " + name);
            };
        runs.add(
            run(db, engine, t, batch, Duration.ofSeconds(warmup), Duration.ofSeconds(seconds)));
        System.out.println(line(runs.getLast()));
      }
    }
    System.out.println();
    System.out.println(table(runs));
  }

  private static Run run(
      PostgresFixture.Database db,
      SpikeEngine engine,
      int threads,
      int batch,
      Duration warmup,
      Duration measured)
      throws Exception {
    try (HikariDataSource pool = BenchDatabase.pool(db, threads + 2)) {
      engine.install(db, pool);
      AtomicLong enqueued = new AtomicLong();
      AtomicLong done = new AtomicLong();
      AtomicLong errors = new AtomicLong();
      AtomicBoolean stop = new AtomicBoolean();
      List<Thread> all = new ArrayList<>();
      all.add(
          Thread.ofPlatform()
              .name("producer")
              .start(
                  () -> {
                    while (!stop.get()) {
                      try {
                        if (enqueued.get() - done.get() < DEPTH) {
                          engine.enqueue(ENQUEUE_BATCH);
                          enqueued.addAndGet(ENQUEUE_BATCH);
                        } else {
                          Thread.sleep(1);
                        }
                      } catch (SQLException e) {
                        errors.incrementAndGet();
                      } catch (InterruptedException e) {
                        return;
                      }
                    }
                  }));
      for (int w = 0; w < threads; w++) {
        String owner = "w" + w;
        all.add(
            Thread.ofPlatform()
                .name("worker-" + w)
                .start(
                    () -> {
                      while (!stop.get()) {
                        try {
                          int n = engine.claimAndCommit(owner, batch);
                          done.addAndGet(n);
                          if (n == 0) {
                            Thread.sleep(1);
                          }
                        } catch (SQLException e) {
                          errors.incrementAndGet();
                        } catch (InterruptedException e) {
                          return;
                        }
                      }
                    }));
      }
      Thread.sleep(warmup);
      long jobs0 = done.get();
      long pg0 = postgresCpuNanos();
      long jvm0 = jvmCpuNanos();
      long t0 = System.nanoTime();
      Thread.sleep(measured);
      long jobs1 = done.get();
      long pg1 = postgresCpuNanos();
      long jvm1 = jvmCpuNanos();
      long t1 = System.nanoTime();
      stop.set(true);
      for (Thread t : all) {
        t.join(30_000);
      }
      String wrong = engine.verify(done.get());
      if (!wrong.isEmpty()) {
        throw new IllegalStateException(engine.name() + " " + threads + " threads: " + wrong);
      }
      return new Run(
          engine.name(),
          threads,
          jobs1 - jobs0,
          Duration.ofNanos(t1 - t0),
          pg1 - pg0,
          jvm1 - jvm0,
          errors.get());
    }
  }

  private static String line(Run r) {
    return String.format(
        Locale.ROOT,
        "%-6s %3d threads: %,9.0f jobs/s, PostgreSQL %6.1f µs/job, JVM %6.1f µs/job, %d errors",
        r.engine(),
        r.threads(),
        r.jobsPerSecond(),
        r.postgresMicrosPerJob(),
        r.jvmMicrosPerJob(),
        r.errors());
  }

  static String table(List<Run> runs) {
    StringBuilder md =
        new StringBuilder(
            "| threads | engine | jobs/s | PostgreSQL CPU µs/job | JVM CPU µs/job | jobs/s / today's"
                + " |\n|---:|---|---:|---:|---:|---:|\n");
    for (Run r : runs) {
      Run today =
          runs.stream()
              .filter(o -> o.threads() == r.threads() && o.engine().equals("today"))
              .findFirst()
              .orElse(null);
      md.append(
          String.format(
              Locale.ROOT,
              "| %d | %s | %,.0f | %.1f | %.1f | %s |%n",
              r.threads(),
              r.engine(),
              r.jobsPerSecond(),
              r.postgresMicrosPerJob(),
              r.jvmMicrosPerJob(),
              today == null || r == today
                  ? ""
                  : String.format(Locale.ROOT, "%.2f", r.jobsPerSecond() / today.jobsPerSecond())));
    }
    return md.toString();
  }

  /** utime + stime of every process named {@code postgres} on this machine. */
  private static long postgresCpuNanos() throws IOException {
    long total = 0;
    try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
      for (Path p : procs.filter(p -> p.getFileName().toString().matches("\\d+")).toList()) {
        try {
          if (Files.readString(p.resolve("comm")).strip().equals("postgres")) {
            long nanos = ProcStat.cpuNanos(Long.parseLong(p.getFileName().toString()));
            total += Math.max(0, nanos);
          }
        } catch (IOException gone) {
          // the process ended meanwhile
        }
      }
    }
    return total;
  }

  private static long jvmCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  /**
   * An engine of the library, through its queue: today's ({@code today}) or the append-only one
   * built from this prototype ({@code append}), each in schema {@code spike_<name>}.
   */
  static final class Today implements SpikeEngine {
    private final String name;
    private final PostgresFencing.Engine engine;
    private FencedQueue queue;
    private List<String> payloads;

    Today(String name, PostgresFencing.Engine engine) {
      this.name = name;
      this.engine = engine;
    }

    @Override
    public String name() {
      return name;
    }

    @Override
    public void install(PostgresFixture.Database db, HikariDataSource pool) {
      db.recreateSchema("spike_" + name);
      queue =
          PostgresFencing.builder(pool)
              .schema("spike_" + name)
              .notifications(false)
              .engine(engine)
              .build()
              .queue();
      payloads = Collections.nCopies(ENQUEUE_BATCH, "{}");
    }

    @Override
    public void enqueue(int count) {
      queue.enqueueAll(QUEUE, payloads.subList(0, count));
    }

    @Override
    public int claimAndCommit(String owner, int n) {
      List<Job> jobs = queue.claimBatch(QUEUE, owner, Duration.ofSeconds(30), n);
      if (jobs.isEmpty()) {
        return 0;
      }
      List<FencedQueue.Completion> completions = new ArrayList<>(jobs.size());
      for (Job job : jobs) {
        completions.add(new FencedQueue.Completion(job.lease(), "{}", List.of()));
      }
      queue.completeAll(completions);
      return jobs.size();
    }
  }
}
