package dev.fencing.benchmarks;

import dev.fencing.FencedQueue;
import dev.fencing.Job;
import dev.fencing.postgres.PostgresFencing;
import java.time.Duration;
import java.util.Collections;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * End to end: claim one job, no-op handler, complete with the owner+epoch compare-and-set. A first
 * skeleton; contention, batching and the raw-SQL and db-scheduler baselines come with the
 * benchmarks issue. Needs {@code FENCING_JDBC_URL}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class ClaimCompleteBenchmark {

  private FencedQueue queue;

  @Setup(Level.Trial)
  public void setUp() {
    String url = System.getenv("FENCING_JDBC_URL");
    if (url == null) {
      throw new IllegalStateException("set FENCING_JDBC_URL to a PostgreSQL JDBC URL");
    }
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setUrl(url);
    queue = PostgresFencing.builder(ds).schema("fencing_bench").build();
    queue.enqueueAll("bench", Collections.nCopies(10_000, "{}"));
  }

  @Benchmark
  public boolean claimAndComplete() {
    Optional<Job> job = queue.claim("bench", "bench-worker", Duration.ofSeconds(30));
    job.ifPresent(j -> queue.complete(j.lease(), "{}"));
    return job.isPresent();
  }
}
