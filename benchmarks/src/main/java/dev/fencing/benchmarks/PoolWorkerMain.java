package dev.fencing.benchmarks;

import com.zaxxer.hikari.HikariDataSource;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.runtime.FencedWorkers;
import dev.fencing.runtime.QueueStats;
import dev.fencing.testkit.db.PostgresFixture;
import java.lang.management.ManagementFactory;

/**
 * One worker process of {@link ProcessScaling}: a {@link FencedWorkers} with one queue, its handler
 * threads doing no-op jobs. Prints {@code ready}, starts on the line {@code go}, runs a warm-up,
 * then measures for the given time, and prints {@code done} followed by what changed over the
 * measured window: completed jobs, claim, commit and renew statements, claimed jobs, claims that
 * returned nothing, this JVM's CPU time in nanoseconds (all threads, user and system), and the
 * milliseconds its JIT compilers and its garbage collectors spent (elapsed time of those threads,
 * as the JVM reports it).
 *
 * <p>Arguments: JDBC URL, user, password, schema, queue, owner, threads, batch, measured
 * milliseconds, and optionally warm-up milliseconds (default 0).
 */
public final class PoolWorkerMain {

  private PoolWorkerMain() {}

  public static void main(String[] args) throws Exception {
    PostgresFixture.Database db = new PostgresFixture.Database(args[0], args[1], args[2], "bench");
    int threads = Integer.parseInt(args[6]);
    int batch = Integer.parseInt(args[7]);
    long millis = Long.parseLong(args[8]);
    long warmup = args.length > 9 ? Long.parseLong(args[9]) : 0;
    try (HikariDataSource ds = BenchDatabase.pool(db, 3)) {
      CountingQueue queue =
          new CountingQueue(
              PostgresFencing.builder(ds).schema(args[3]).install(false).build().queue());
      if (!WorkerProcesses.readyForGo()) {
        return;
      }
      long[] window;
      try (FencedWorkers workers =
          FencedWorkers.builder(queue)
              .receiver(AcceptingReceiver.INSTANCE)
              .owner(args[5])
              .queue(
                  args[4],
                  (job, cancellation) -> "{}",
                  q -> q.concurrency(threads).prefetch(4 * batch).batchSize(batch))
              .start()) {
        Thread.sleep(warmup);
        long[] before = sample(workers.stats().get(args[4]), queue);
        Thread.sleep(millis);
        long[] after = sample(workers.stats().get(args[4]), queue);
        window = new long[before.length];
        for (int i = 0; i < window.length; i++) {
          window[i] = after[i] - before[i];
        }
      }
      StringBuilder done = new StringBuilder("done");
      for (long value : window) {
        done.append(' ').append(value);
      }
      System.out.println(done);
    }
  }

  private static long[] sample(QueueStats s, CountingQueue queue) {
    return new long[] {
      s.completed(),
      s.claimStatements(),
      s.commitStatements(),
      s.renewStatements(),
      s.claimed(),
      queue.emptyClaims(),
      cpuNanos(),
      ProcStat.ownThreadsCpuNanos("C1 CompilerThre", "C2 CompilerThre"),
      ProcStat.ownThreadsCpuNanos("GC Thread", "G1 ", "VM Thread")
    };
  }

  /** This JVM's CPU time in nanoseconds, all threads, user and system. */
  static long cpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }
}
