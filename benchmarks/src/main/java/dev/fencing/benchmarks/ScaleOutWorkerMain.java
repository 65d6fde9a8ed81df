package dev.fencing.benchmarks;

import com.zaxxer.hikari.HikariDataSource;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.runtime.FencedWorkers;
import dev.fencing.runtime.QueueStats;
import dev.fencing.testkit.db.PostgresFixture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * One worker JVM of {@link ScaleOutBenchmark}, standing for several pods: {@code --runtimes} {@code
 * FencedWorkers} on one queue, each with its own owner name, its own {@code PostgresFencing} handle
 * and its own HikariCP pool of {@code --pool} connections, {@code --threads} handler threads and 1
 * ms handlers, everything else the runtime's defaults. Prints {@code ready}, starts the runtimes on
 * the line {@code go}, runs {@code --warmup-ms} (and on until a job is done, at most 30 s more),
 * measures {@code --millis}, then prints {@code done} followed by what changed over the measured
 * window, summed over its runtimes: completed jobs, claim statements, claimed jobs, claims that
 * returned nothing, and this JVM's CPU time in nanoseconds; then {@code claims} followed by the
 * time of every claim call in the window, in microseconds.
 *
 * <p>Options: {@code --url --user --password --schema --queue --owner --engine update|append
 * --notifications on|off --runtimes --threads --pool --prefetch --commit-delay-ms --warmup-ms
 * --millis}.
 */
public final class ScaleOutWorkerMain {

  private ScaleOutWorkerMain() {}

  public static void main(String[] args) throws Exception {
    PostgresFixture.Database db = Args.database(args);
    int runtimes = Args.intArg(args, "--runtimes", 1);
    int threads = Args.intArg(args, "--threads", 4);
    int prefetch = Args.intArg(args, "--prefetch", 0);
    int commitDelay = Args.intArg(args, "--commit-delay-ms", -1);
    String owner = Args.stringArg(args, "--owner", "scale");
    String queueName = Args.stringArg(args, "--queue", "bench");
    PostgresFencing.Engine engine =
        ScaleOutPoint.engine(Args.stringArg(args, "--engine", "update"));
    List<HikariDataSource> pools = new ArrayList<>();
    List<CountingQueue> queues = new ArrayList<>();
    List<FencedWorkers> started = new ArrayList<>();
    try {
      for (int i = 0; i < runtimes; i++) {
        HikariDataSource pool = BenchDatabase.pool(db, Args.intArg(args, "--pool", 3));
        pools.add(pool);
        queues.add(
            new CountingQueue(
                PostgresFencing.builder(pool)
                    .schema(Args.stringArg(args, "--schema", "bench_scale"))
                    .engine(engine)
                    .notifications(Args.stringArg(args, "--notifications", "on").equals("on"))
                    .install(false)
                    .build()
                    .queue()));
      }
      if (!WorkerProcesses.readyForGo()) {
        return;
      }
      for (int i = 0; i < runtimes; i++) {
        started.add(
            FencedWorkers.builder(queues.get(i))
                .receiver(AcceptingReceiver.INSTANCE)
                .owner(owner + "-" + i)
                .queue(
                    queueName,
                    (job, cancellation) -> {
                      Thread.sleep(1);
                      return "{}";
                    },
                    q -> {
                      q.concurrency(threads);
                      if (prefetch > 0) {
                        q.prefetch(prefetch);
                      }
                      if (commitDelay >= 0) {
                        q.maxCommitDelay(Duration.ofMillis(commitDelay));
                      }
                    })
                .start());
      }
      Thread.sleep(Args.intArg(args, "--warmup-ms", 0));
      // and until a job was done: a cold JVM on a loaded machine took longer than the smoke form's
      // half-second warm-up to claim at all, and its row measured the JVM's start (bounded: 30 s)
      long warm = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (sample(started, queues)[0] == 0 && System.nanoTime() - warm < 0) {
        Thread.sleep(10);
      }
      long[] before = sample(started, queues);
      queues.forEach(CountingQueue::takeClaimTimes);
      Thread.sleep(Args.intArg(args, "--millis", 1_000));
      long[] after = sample(started, queues);
      StringBuilder claims = new StringBuilder("claims");
      for (CountingQueue queue : queues) {
        LatencyRecorder times = queue.takeClaimTimes();
        for (int k = 0; k < times.count(); k++) {
          claims.append(' ').append(times.sample(k) / 1_000);
        }
      }
      started.forEach(FencedWorkers::close);
      started.clear();
      StringBuilder done = new StringBuilder("done");
      for (int k = 0; k < before.length; k++) {
        done.append(' ').append(after[k] - before[k]);
      }
      System.out.println(done);
      System.out.println(claims);
      System.out.flush();
    } finally {
      started.forEach(FencedWorkers::close);
      pools.forEach(HikariDataSource::close);
    }
  }

  private static long[] sample(List<FencedWorkers> workers, List<CountingQueue> queues) {
    long[] sum = new long[6];
    for (FencedWorkers w : workers) {
      QueueStats s = w.stats().values().iterator().next();
      sum[0] += s.completed();
      sum[1] += s.claimStatements();
      sum[2] += s.claimed();
      sum[5] += s.commitStatements();
    }
    for (CountingQueue queue : queues) {
      sum[3] += queue.emptyClaims();
    }
    sum[4] = PoolWorkerMain.cpuNanos();
    return sum;
  }
}
