package dev.fencing.benchmarks;

import com.zaxxer.hikari.HikariDataSource;
import dev.fencing.FencedQueue;
import dev.fencing.Job;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.runtime.FencedWorkers;
import dev.fencing.testkit.db.PostgresFixture;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.BenchmarkParams;

/**
 * End to end: claim, a no-op handler, complete with the owner+epoch compare-and-set, with durable
 * commits. The {@code jobs} counter is the result (jobs per second).
 *
 * <ul>
 *   <li>{@code library}: each thread calls {@link FencedQueue#claimBatch} and {@link
 *       FencedQueue#complete} (batch 1) or {@link FencedQueue#completeAll};
 *   <li>{@code raw}: each thread runs the same SQL through plain JDBC, no library code;
 *   <li>{@code pool}: the pool as it was before the runtime ({@link PrefetchPool}: one batched
 *       claimer, one batched committer, no heartbeats) feeds the benchmark threads, which act as
 *       handler threads;
 *   <li>{@code runtime}: one {@link FencedWorkers} queue with as many handler threads as the
 *       benchmark has, a prefetch of four batches (the old pool buffered six), a 3 s lease renewed
 *       by heartbeats every second, and a receiver that accepts every delivery; the benchmark
 *       threads count its completions.
 * </ul>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class ThroughputBenchmark {

  static final String SCHEMA = "bench_throughput";
  static final String QUEUE = "bench";
  private static final Duration LEASE = Duration.ofSeconds(30);

  @Param({"library", "raw", "pool", "runtime"})
  public String mode;

  @Param({"1", "10", "100"})
  public int batch;

  @Param({"100000"})
  public int depth;

  private HikariDataSource ds;
  private FencedQueue queue;
  private RawSql raw;
  private PrefetchPool pool;
  private FencedWorkers workers;
  private final AtomicLong reported = new AtomicLong();
  private final AtomicInteger owners = new AtomicInteger();
  private final ConcurrentLinkedQueue<LatencyRecorder> latencies = new ConcurrentLinkedQueue<>();
  private String label;

  /** Per thread: its owner name and its claim latencies. */
  @State(Scope.Thread)
  public static class Worker {
    String owner;
    final LatencyRecorder claims = new LatencyRecorder();

    @Setup(Level.Trial)
    public void name(ThroughputBenchmark bench) {
      owner = "t" + bench.owners.incrementAndGet();
      bench.latencies.add(claims);
    }
  }

  /** Jobs finished, reported by JMH as a rate. */
  @AuxCounters(AuxCounters.Type.OPERATIONS)
  @State(Scope.Thread)
  public static class Jobs {
    public long jobs;

    @Setup(Level.Iteration)
    public void reset() {
      jobs = 0;
    }
  }

  @Setup(Level.Trial)
  public void setUp(BenchmarkParams params) {
    PostgresFixture.Database db = BenchDatabase.database();
    BenchDatabase.freshQueueSchema(db, SCHEMA);
    ds = BenchDatabase.pool(db, params.getThreads() + 3);
    BenchDatabase.seed(ds, SCHEMA, QUEUE, depth);
    queue = PostgresFencing.builder(ds).schema(SCHEMA).install(false).build().queue();
    raw = new RawSql(ds, SCHEMA);
    label = mode + "-b" + batch + "-t" + params.getThreads();
    if (mode.equals("pool")) {
      pool = PrefetchPool.start(queue, QUEUE, "pool", batch, LEASE);
    }
    if (mode.equals("runtime")) {
      workers =
          FencedWorkers.builder(queue)
              .receiver(AcceptingReceiver.INSTANCE)
              .owner("runtime")
              .queue(
                  QUEUE,
                  (job, cancellation) -> "{}",
                  q ->
                      q.concurrency(params.getThreads())
                          .prefetch(4 * batch)
                          .batchSize(batch)
                          .leaseLength(Duration.ofSeconds(3))
                          .heartbeatInterval(Duration.ofSeconds(1)))
              .start();
    }
  }

  /**
   * Tops the queue up to twice its depth before every iteration: a fast configuration finishes more
   * than {@code depth} jobs in one iteration, and a queue that runs dry measures nothing.
   */
  @Setup(Level.Iteration)
  public void topUp() {
    long pending = BenchDatabase.pending(ds, SCHEMA, QUEUE);
    if (pending < 2L * depth) {
      BenchDatabase.seed(ds, SCHEMA, QUEUE, (int) (2L * depth - pending));
    }
    if (workers != null) {
      reported.set(
          workers
              .stats()
              .get(QUEUE)
              .completed()); // what finished between iterations counts nowhere
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() throws IOException {
    if (pool != null) {
      pool.close();
    }
    if (workers != null) {
      workers.close();
    }
    ds.close();
    LatencyRecorder all = new LatencyRecorder();
    latencies.forEach(all::addAll);
    writeLatency(label, all);
  }

  @Benchmark
  public void endToEnd(Worker worker, Jobs jobs) throws SQLException, InterruptedException {
    switch (mode) {
      case "library" -> jobs.jobs += viaLibrary(worker);
      case "raw" -> jobs.jobs += viaRawSql(worker);
      case "pool" -> jobs.jobs += viaPool();
      case "runtime" -> jobs.jobs += viaRuntime();
      default ->
          throw new IllegalArgumentException("mode must be library, raw, pool or runtime: " + mode);
    }
  }

  private int viaLibrary(Worker worker) {
    long start = System.nanoTime();
    List<Job> claimed = queue.claimBatch(QUEUE, worker.owner, LEASE, batch);
    worker.claims.record(System.nanoTime() - start);
    if (claimed.size() == 1) {
      queue.complete(claimed.getFirst().lease(), "{}");
    } else if (!claimed.isEmpty()) {
      List<FencedQueue.Completion> done = new ArrayList<>(claimed.size());
      for (Job job : claimed) {
        done.add(new FencedQueue.Completion(job.lease(), "{}"));
      }
      queue.completeAll(done);
    }
    return claimed.size();
  }

  private int viaRawSql(Worker worker) throws SQLException {
    long start = System.nanoTime();
    List<RawSql.Claimed> claimed = raw.claim(QUEUE, worker.owner, batch);
    worker.claims.record(System.nanoTime() - start);
    raw.complete(worker.owner, claimed);
    return claimed.size();
  }

  private int viaPool() {
    Optional<Job> job = pool.next(Duration.ofMillis(100));
    if (job.isEmpty()) {
      return 0;
    }
    pool.complete(job.get(), "{}");
    return 1;
  }

  /**
   * The runtime's own handler threads do the work; a benchmark thread only reports, every
   * millisecond, the completions no other benchmark thread has reported yet.
   */
  private long viaRuntime() throws InterruptedException {
    Thread.sleep(1);
    long done = workers.stats().get(QUEUE).completed();
    long before = reported.getAndAccumulate(done, Math::max);
    return Math.max(0, done - before);
  }

  /** Where claim latencies are written, one file per configuration, for the report. */
  static Path latencyFile(String label) {
    return Path.of(System.getProperty("bench.out", "target/bench"), "latency-" + label + ".txt");
  }

  private static void writeLatency(String label, LatencyRecorder all) throws IOException {
    Path file = latencyFile(label);
    Files.createDirectories(file.getParent());
    Files.writeString(
        file,
        all.count() == 0
            ? "n/a n/a"
            : String.format("%.2f %.2f", all.percentileMillis(50), all.percentileMillis(99)));
  }
}
