package dev.fencing.benchmarks;

import com.zaxxer.hikari.HikariDataSource;
import dev.fencing.testkit.db.PostgresFixture;
import java.sql.SQLException;
import java.util.List;

/**
 * Several worker processes on one queue, each a {@code FencedWorkers}: the total rate of committed
 * jobs over the same wall-clock window in every process, and what each job cost: statements by
 * kind, transactions, CPU of the worker JVMs and of the database's backends, and what the backends
 * waited on. The costs per job depend little on how busy the machine was; the rate does.
 */
final class ProcessScaling {

  /**
   * One measurement: {@code processes} processes of {@code threads} handler threads each, summed
   * over the measured window; {@code jitCpuNanos} and {@code gcCpuNanos} are the part of the
   * workers' CPU their JIT compiler threads and their GC and VM threads took. The backends' CPU is
   * -1 when the server is not on this machine.
   */
  record Row(
      int processes,
      int threads,
      int batch,
      long millis,
      long completed,
      long claimStatements,
      long commitStatements,
      long renewStatements,
      long claimed,
      long emptyClaims,
      long workerCpuNanos,
      long jitCpuNanos,
      long gcCpuNanos,
      PgObserver.Window pg) {

    double jobsPerSecond() {
      return completed * 1000.0 / millis;
    }

    double perJob(long count) {
      return completed == 0 ? Double.NaN : (double) count / completed;
    }

    /** Milliseconds of CPU per 1,000 jobs (= microseconds per job). */
    double cpuPerThousand(long nanos) {
      return nanos < 0 || completed == 0 ? Double.NaN : nanos / 1_000_000.0 / completed * 1000;
    }

    /** Samples of backends waiting on a lock (heavyweight or lightweight), of all samples. */
    long lockWaitSamples() {
      return pg.lockWaitSamples();
    }
  }

  private static final String SCHEMA = "bench_processes";
  private static final String QUEUE = "bench";

  private ProcessScaling() {}

  /**
   * Runs {@code processes} worker processes: {@code warmup} ms of work, then the measured window of
   * {@code millis} ms.
   */
  static Row run(
      PostgresFixture.Database db, int processes, int threads, int batch, long millis, long warmup)
      throws InterruptedException, SQLException {
    BenchDatabase.freshQueueSchema(db, SCHEMA);
    try (HikariDataSource ds = BenchDatabase.pool(db, 2)) {
      // deep enough that no row runs dry: well above the fastest rate seen on this machine
      BenchDatabase.seed(ds, SCHEMA, QUEUE, (int) Math.max(20_000, (millis + warmup) * 60));
    }
    try (WorkerProcesses workers = new WorkerProcesses();
        HikariDataSource observed = BenchDatabase.pool(db, 1)) {
      for (int p = 0; p < processes; p++) {
        workers.start(
            PoolWorkerMain.class,
            WorkerProcesses.SERVICE_JVM,
            List.of(
                db.jdbcUrl(),
                db.user(),
                db.password(),
                SCHEMA,
                QUEUE,
                "proc" + p,
                Integer.toString(threads),
                Integer.toString(batch),
                Long.toString(millis),
                Long.toString(warmup)));
      }
      workers.go();
      Thread.sleep(warmup);
      PgObserver.Window pg;
      try (PgObserver observer = PgObserver.start(observed)) {
        Thread.sleep(millis);
        pg = observer.stop();
      }
      long[] sum = new long[9];
      for (String line : workers.await("done")) {
        String[] done = line.trim().split(" ");
        for (int i = 0; i < sum.length; i++) {
          sum[i] += Long.parseLong(done[i + 1]);
        }
      }
      return new Row(
          processes, threads, batch, millis, sum[0], sum[1], sum[2], sum[3], sum[4], sum[5], sum[6],
          sum[7], sum[8], pg);
    }
  }
}
