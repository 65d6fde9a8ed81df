package dev.fencing.benchmarks;

import com.github.kagkarlsson.scheduler.Scheduler;
import com.github.kagkarlsson.scheduler.task.TaskInstance;
import com.github.kagkarlsson.scheduler.task.helper.OneTimeTask;
import com.github.kagkarlsson.scheduler.task.helper.Tasks;
import com.zaxxer.hikari.HikariDataSource;
import dev.fencing.internal.Validate;
import dev.fencing.testkit.db.PostgresFixture;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;

/**
 * The peer baseline: the same no-op job workload run through db-scheduler (one-time tasks,
 * lock-and-fetch polling), so that a report can state "ours / db-scheduler" at equal threads.
 */
public final class DbSchedulerPeer {

  /**
   * One measured run.
   *
   * @param threads db-scheduler's executor threads
   * @param tasks how many one-time tasks ran
   * @param jobsPerSecond {@code tasks / seconds}
   * @param seconds wall time from starting the scheduler until the last task's handler ran
   */
  public record Result(int threads, int tasks, double jobsPerSecond, double seconds) {}

  private static final String TABLE = "scheduled_tasks";
  private static final String TASK_NAME = "noop";
  private static final Duration POLLING_INTERVAL = Duration.ofMillis(10);
  // Lock-and-fetch refills when fewer than threads * LOWER are queued and locks up to threads *
  // UPPER at once. Its default (0.5, 1.0) halved throughput at 16 threads; (0.5, 4.0) was close.
  private static final double LOWER_FRACTION = 1.0;
  private static final double UPPER_FRACTION = 10.0;
  private static final Duration TIMEOUT = Duration.ofMinutes(10);
  private static final int DEFAULT_TASKS = 20_000;
  private static final int[] DEFAULT_THREADS = {1, 8, 16};

  private DbSchedulerPeer() {}

  /**
   * Drops and recreates {@code schema} with db-scheduler's table in it, schedules {@code tasks}
   * no-op one-time tasks due now, then starts a scheduler with {@code threads} executor threads and
   * times it until every task has run. The schema is left in place.
   *
   * @param dataSource a pool of at least {@code threads + 3} connections
   * @throws IllegalArgumentException if {@code schema} is not a plain identifier, or {@code
   *     threads} or {@code tasks} is less than 1
   * @throws IllegalStateException if the tasks have not all run within 10 minutes
   */
  public static Result run(DataSource dataSource, String schema, int threads, int tasks) {
    Validate.identifier("schema", schema);
    atLeastOne("threads", threads);
    atLeastOne("tasks", tasks);
    createTable(dataSource, schema);
    CountDownLatch remaining = new CountDownLatch(tasks);
    OneTimeTask<Void> task =
        Tasks.oneTime(TASK_NAME).execute((instance, context) -> remaining.countDown());
    Scheduler scheduler = scheduler(dataSource, schema, threads, task);
    scheduler.scheduleBatch(instances(task, tasks), Instant.now());
    long start = System.nanoTime();
    scheduler.start();
    try {
      awaitAll(remaining, tasks);
    } finally {
      scheduler.stop();
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    return new Result(threads, tasks, tasks / seconds, seconds);
  }

  private static Scheduler scheduler(
      DataSource dataSource, String schema, int threads, OneTimeTask<Void> task) {
    return Scheduler.create(dataSource, task)
        .tableName(schema + "." + TABLE)
        .threads(threads)
        .pollingInterval(POLLING_INTERVAL)
        .pollUsingLockAndFetch(LOWER_FRACTION, UPPER_FRACTION)
        .build();
  }

  private static List<TaskInstance<?>> instances(OneTimeTask<Void> task, int tasks) {
    List<TaskInstance<?>> instances = new ArrayList<>(tasks);
    for (int i = 0; i < tasks; i++) {
      instances.add(task.instance(Integer.toString(i)));
    }
    return instances;
  }

  private static void awaitAll(CountDownLatch remaining, int tasks) {
    try {
      if (!remaining.await(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
        throw new IllegalStateException(
            (tasks - remaining.getCount()) + " of " + tasks + " tasks ran within " + TIMEOUT);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for " + tasks + " tasks", e);
    }
  }

  // The PostgreSQL table db-scheduler documents, with its three indexes.
  private static void createTable(DataSource dataSource, String schema) {
    String table = schema + "." + TABLE;
    try (Connection c = dataSource.getConnection();
        Statement s = c.createStatement()) {
      s.execute("drop schema if exists " + schema + " cascade");
      s.execute("create schema " + schema);
      s.execute(
          "create table "
              + table
              + " (task_name text not null, task_instance text not null, task_data bytea,"
              + " execution_time timestamptz not null, picked boolean not null, picked_by text,"
              + " last_success timestamptz, last_failure timestamptz, consecutive_failures int,"
              + " last_heartbeat timestamptz, version bigint not null, priority smallint,"
              + " primary key (task_name, task_instance))");
      s.execute("create index on " + table + " (execution_time)");
      s.execute("create index on " + table + " (last_heartbeat)");
      s.execute("create index on " + table + " (priority desc, execution_time asc)");
    } catch (SQLException e) {
      throw new IllegalStateException("creating " + table + ": " + e, e);
    }
  }

  private static void atLeastOne(String parameter, int value) {
    if (value < 1) {
      throw new IllegalArgumentException(parameter + " must be at least 1, but was " + value);
    }
  }

  /**
   * Runs the peer on {@link BenchDatabase#database()} and prints one line per run. Arguments: the
   * number of tasks (default 20000), then the thread counts (default 1 8 16).
   */
  public static void main(String[] args) {
    System.setProperty(
        "org.slf4j.simpleLogger.log.com.github.kagkarlsson",
        System.getProperty("org.slf4j.simpleLogger.log.com.github.kagkarlsson", "warn"));
    int tasks = args.length > 0 ? Integer.parseInt(args[0]) : DEFAULT_TASKS;
    int[] threadCounts = DEFAULT_THREADS;
    if (args.length > 1) {
      threadCounts = new int[args.length - 1];
      for (int i = 1; i < args.length; i++) {
        threadCounts[i - 1] = Integer.parseInt(args[i]);
      }
    }
    PostgresFixture.Database db = BenchDatabase.database();
    for (int threads : threadCounts) {
      print(runOnce(db, threads, tasks));
    }
  }

  private static Result runOnce(PostgresFixture.Database db, int threads, int tasks) {
    String schema = "dbscheduler_peer_" + threads;
    try (HikariDataSource pool = BenchDatabase.pool(db, threads + 4)) {
      return run(pool, schema, threads, tasks);
    } finally {
      db.dropSchema(schema);
    }
  }

  private static void print(Result r) {
    System.out.printf(
        "db-scheduler threads=%d tasks=%d seconds=%.3f jobs/s=%.0f%n",
        r.threads(), r.tasks(), r.seconds(), r.jobsPerSecond());
  }
}
