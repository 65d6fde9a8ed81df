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
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
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

  private static final String QUEUE = "spike";
  private static final int DEPTH = 4_000;
  private static final int ENQUEUE_BATCH = 100;

  /** One engine's hot path. */
  interface Engine {
    String name();

    void install(PostgresFixture.Database db, HikariDataSource pool) throws SQLException;

    void enqueue(int count) throws SQLException;

    /** Claims up to {@code n} jobs and commits them; returns how many. */
    int claimAndCommit(String owner, int n) throws SQLException;

    /**
     * After the run: what is wrong with the store, given that {@code committed} jobs were reported
     * committed (a job claimed twice, lost or committed twice); empty when nothing.
     */
    default String verify(long committed) throws SQLException {
      return "";
    }
  }

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
        Engine engine =
            switch (name) {
              case "today" -> new Today("today", PostgresFencing.Engine.UPDATE_IN_PLACE);
              case "append" -> new Today("append", PostgresFencing.Engine.APPEND_ONLY);
              case "log" -> new Log();
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
      Engine engine,
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
  static final class Today implements Engine {
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

  /** The append-only prototype, in plain SQL (schema {@code spike_log}). */
  static final class Log implements Engine {
    private static final String SCHEMA =
        """
        create table job (
          id bigint generated always as identity primary key,
          queue text not null,
          payload jsonb not null,
          xid xid8 not null default pg_current_xact_id(),
          created_at timestamptz not null default now());
        create index job_window on job (queue, xid, id);
        create table job_window_cursor (
          queue text primary key,
          lo pg_snapshot not null,
          hi pg_snapshot not null,
          after_xid xid8 not null,
          after_id bigint not null) with (fillfactor = 30);
        create sequence claim_epoch;
        create table claim (
          epoch bigint primary key,
          queue text not null,
          owner text not null,
          lease_expires_at timestamptz not null,
          job_ids bigint[] not null,
          open integer not null) with (fillfactor = 70);
        create index claim_expiry on claim (queue, lease_expires_at) where open > 0;
        create table done (
          job_id bigint primary key,
          epoch bigint not null,
          result jsonb not null,
          finished_at timestamptz not null default now());

        -- the next jobs of the queue's window, at most n, in one new claim row
        create function claim(q text, o text, lease interval, n integer)
            returns table (job_id bigint, epoch bigint) language plpgsql
            set search_path = spike_log as $$
        #variable_conflict use_column
        declare
          c job_window_cursor%rowtype;
          ids bigint[] := '{}';
          more bigint[];
          last_xid xid8;
          last_id bigint;
          e bigint;
        begin
          select * into c from job_window_cursor w where w.queue = q for update;
          if not found then
            -- the first window: every job committed so far (nothing is visible in '3:3:')
            insert into job_window_cursor values (q, '3:3:', pg_current_snapshot(), '0', 0)
              on conflict do nothing;
            select * into c from job_window_cursor w where w.queue = q for update;
          end if;
          for round in 1..2 loop
            select coalesce(array_agg(w.id order by w.xid, w.id), '{}'),
                   (array_agg(w.xid order by w.xid desc, w.id desc))[1],
                   (array_agg(w.id order by w.xid desc, w.id desc))[1]
              into more, last_xid, last_id
              from (select j.id, j.xid from job j
                     where j.queue = q and (j.xid, j.id) > (c.after_xid, c.after_id)
                       and j.xid < pg_snapshot_xmax(c.hi)
                       and pg_visible_in_snapshot(j.xid, c.hi)
                       and not pg_visible_in_snapshot(j.xid, c.lo)
                     order by j.xid, j.id limit n - cardinality(ids)) w;
            ids := ids || more;
            if last_xid is not null then
              c.after_xid := last_xid;
              c.after_id := last_id;
            end if;
            exit when cardinality(ids) >= n or round = 2;
            -- the window is spent: the next one is what committed since its end
            c.lo := c.hi;
            c.hi := pg_current_snapshot();
            c.after_xid := pg_snapshot_xmin(c.lo);
            c.after_id := 0;
          end loop;
          update job_window_cursor set lo = c.lo, hi = c.hi, after_xid = c.after_xid, after_id = c.after_id
            where job_window_cursor.queue = q;
          if cardinality(ids) = 0 then
            return;
          end if;
          e := nextval('claim_epoch');
          insert into claim values (e, q, o, now() + lease, ids, cardinality(ids));
          return query select unnest(ids), e;
        end $$;

        -- the compare-and-set on the claim row, then one completion row per job
        create function complete(e bigint, o text, ids bigint[], results jsonb[])
            returns integer language plpgsql set search_path = spike_log as $$
        begin
          update claim set open = open - cardinality(ids)
            where claim.epoch = e and claim.owner = o and claim.lease_expires_at > now();
          if not found then
            return 0;
          end if;
          insert into done (job_id, epoch, result)
            select unnest(ids), e, unnest(results) on conflict do nothing;
          return cardinality(ids);
        end $$;
        """;

    private HikariDataSource pool;

    @Override
    public String name() {
      return "log";
    }

    @Override
    public void install(PostgresFixture.Database db, HikariDataSource pool) throws SQLException {
      db.recreateSchema("spike_log");
      this.pool = pool;
      try (Connection c = pool.getConnection();
          Statement s = c.createStatement()) {
        s.execute("set search_path to spike_log");
        s.execute(SCHEMA);
        s.execute("reset search_path");
      }
    }

    @Override
    public void enqueue(int count) throws SQLException {
      try (Connection c = pool.getConnection();
          PreparedStatement s =
              c.prepareStatement(
                  "insert into spike_log.job (queue, payload)"
                      + " select ?, '{}'::jsonb from generate_series(1, ?)")) {
        s.setString(1, QUEUE);
        s.setInt(2, count);
        s.executeUpdate();
      }
    }

    /** Every claimed job was claimed once and completed once, and none was skipped. */
    @Override
    public String verify(long committed) throws SQLException {
      try (Connection c = pool.getConnection();
          Statement s = c.createStatement();
          ResultSet r =
              s.executeQuery(
                  "select (select coalesce(sum(cardinality(job_ids)), 0) from spike_log.claim),"
                      + " (select count(distinct j) from spike_log.claim, unnest(job_ids) j),"
                      + " (select count(*) from spike_log.done),"
                      + " (select count(*) from spike_log.job j where not exists"
                      + "   (select 1 from spike_log.done d where d.job_id = j.id)"
                      + "   and j.id < (select max(d.job_id) from spike_log.done d))")) {
        r.next();
        long claimed = r.getLong(1);
        long distinct = r.getLong(2);
        long completed = r.getLong(3);
        long skipped = r.getLong(4);
        List<String> wrong = new ArrayList<>();
        if (claimed != distinct) {
          wrong.add((claimed - distinct) + " jobs claimed twice");
        }
        // one producer commits its batches in turn, so jobs are handed out in id order: a job
        // below the newest completed one that was never handed out was skipped
        if (skipped > 0) {
          wrong.add(skipped + " jobs skipped (never claimed, below the newest completion)");
        }
        if (completed != committed || completed != claimed) {
          wrong.add("claimed " + claimed + ", completed " + completed + ", reported " + committed);
        }
        System.out.printf(
            "log: %d claimed, %d completed, %d not completed below the newest completion%n",
            claimed, completed, skipped);
        return String.join("; ", wrong);
      }
    }

    @Override
    public int claimAndCommit(String owner, int n) throws SQLException {
      List<Long> ids = new ArrayList<>(n);
      long epoch = 0;
      try (Connection c = pool.getConnection()) {
        try (PreparedStatement s =
            c.prepareStatement(
                "select job_id, epoch from spike_log.claim(?, ?, interval '30 seconds', ?)")) {
          s.setString(1, QUEUE);
          s.setString(2, owner);
          s.setInt(3, n);
          try (ResultSet r = s.executeQuery()) {
            while (r.next()) {
              ids.add(r.getLong(1));
              epoch = r.getLong(2);
            }
          }
        }
        if (ids.isEmpty()) {
          return 0;
        }
        String[] results = new String[ids.size()];
        java.util.Arrays.fill(results, "{}");
        try (PreparedStatement s =
            c.prepareStatement("select spike_log.complete(?, ?, ?, ?::jsonb[])")) {
          Array idArray = c.createArrayOf("bigint", ids.toArray());
          Array resultArray = c.createArrayOf("text", results);
          s.setLong(1, epoch);
          s.setString(2, owner);
          s.setArray(3, idArray);
          s.setArray(4, resultArray);
          try (ResultSet r = s.executeQuery()) {
            r.next();
            return r.getInt(1);
          }
        }
      }
    }
  }
}
