package dev.fencing.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.FencedOutcome;
import dev.fencing.FencedQueue;
import dev.fencing.FencedWorkerPool;
import dev.fencing.Job;
import dev.fencing.JobState;
import dev.fencing.testkit.FencingDatabase;
import dev.fencing.testkit.TestSchema;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** One claimer, many handler threads, batched commits: every job done once, zombies refused. */
@FencingDatabase
class FencedWorkerPoolTest {

  @Test
  void manyHandlerThreadsFinishEveryJobOnceInBatches(TestSchema schema) throws Exception {
    FencedQueue queue = new PostgresBackend().queue(schema.pooledDataSource(6), schema.name());
    List<Long> ids =
        queue.enqueueAll("bulk", IntStream.range(0, 1000).mapToObj(i -> "{}").toList());
    ExecutorService handlers = Executors.newFixedThreadPool(4);
    try (FencedWorkerPool pool =
        FencedWorkerPool.builder(queue).queue("bulk").owner("p1").batchSize(50).start()) {
      List<Future<Integer>> done = new java.util.ArrayList<>();
      for (int t = 0; t < 4; t++) {
        done.add(
            handlers.submit(
                () -> {
                  int n = 0;
                  for (Optional<Job> job = pool.next(Duration.ofMillis(500));
                      job.isPresent();
                      job = pool.next(Duration.ofMillis(500))) {
                    pool.complete(job.get(), "{\"ok\": true}");
                    n++;
                  }
                  return n;
                }));
      }
      int handled = 0;
      for (Future<Integer> f : done) {
        handled += f.get();
      }
      assertThat(handled).isEqualTo(1000);
    } finally {
      handlers.shutdownNow();
    }
    for (long id : ids) {
      assertThat(queue.find(id).orElseThrow().state()).isEqualTo(JobState.COMPLETED);
    }
  }

  @Test
  void aResultWhoseLeaseRanOutIsRefusedAndReported(TestSchema schema) throws Exception {
    FencedQueue queue = new PostgresBackend().queue(schema.pooledDataSource(4), schema.name());
    long id = queue.enqueue("slow", "{}");
    List<FencedOutcome.Refused> refused = new CopyOnWriteArrayList<>();
    FencedWorkerPool.Stats stats;
    try (FencedWorkerPool pool =
        FencedWorkerPool.builder(queue)
            .queue("slow")
            .owner("zombie")
            .batchSize(1)
            .leaseLength(Duration.ofMillis(200))
            .onRefused(refused::add)
            .start()) {
      Job job = pool.next(Duration.ofSeconds(5)).orElseThrow();
      // the lease runs out; someone (another worker, or this pool's own claimer) claims it again
      long reclaimBy = System.nanoTime() + Duration.ofSeconds(5).toNanos();
      while (queue.find(id).orElseThrow().epoch() < 2 && System.nanoTime() < reclaimBy) {
        queue.claim("slow", "healthy", Duration.ofMinutes(1));
        Thread.sleep(20);
      }
      assertThat(queue.find(id).orElseThrow().epoch()).isEqualTo(2);
      pool.complete(job, "{\"late\": true}");
      long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
      while (refused.isEmpty() && System.nanoTime() < deadline) {
        Thread.sleep(10);
      }
      stats = pool.stats();
    }
    assertThat(refused).singleElement().isInstanceOf(FencedOutcome.Superseded.class);
    assertThat(stats.refused()).isEqualTo(1);
    assertThat(queue.find(id).orElseThrow().result()).isNull();
  }

  @Test
  void closingReleasesJobsClaimedButNeverHandedOut(TestSchema schema) {
    FencedQueue queue = new PostgresBackend().queue(schema.pooledDataSource(4), schema.name());
    List<Long> ids = queue.enqueueAll("q", List.of("{}", "{}", "{}"));
    long handedOut;
    try (FencedWorkerPool pool =
        FencedWorkerPool.builder(queue).queue("q").owner("p").batchSize(10).start()) {
      handedOut = pool.next(Duration.ofSeconds(5)).orElseThrow().id();
    }
    List<Long> released =
        queue.claimBatch("q", "other", Duration.ofMinutes(1), 10).stream().map(Job::id).toList();
    assertThat(released)
        .containsExactlyInAnyOrderElementsOf(ids.stream().filter(id -> id != handedOut).toList());
  }

  @Test
  void settingsAreCheckedByName(TestSchema schema) {
    FencedQueue queue = new PostgresBackend().queue(schema.dataSource(), schema.name());
    assertThatThrownBy(
            () -> FencedWorkerPool.builder(queue).queue("q").owner("p").batchSize(0).start())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("batchSize")
        .hasMessageContaining("0");
  }
}
