package dev.fencing.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.FencedQueue;
import dev.fencing.FencedReceiver;
import dev.fencing.JobState;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.receiver.Receivers;
import dev.fencing.testkit.db.FencingDatabase;
import dev.fencing.testkit.db.TestSchema;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * Handlers on virtual threads keep every promise of platform ones: many blocking handlers run at
 * once, slow ones are renewed and finish at their first epoch, and shutdown commits what finished.
 * (A lost lease interrupting a virtual thread: {@link HeartbeatTest}.)
 */
@FencingDatabase
class VirtualThreadHandlersTest {

  @Test
  void hundredsOfBlockingHandlersRunAtOnceOnVirtualThreads(TestSchema schema) throws Exception {
    FencedQueue queue = queue(schema);
    List<Long> ids = queue.enqueueAll("q", IntStream.range(0, 300).mapToObj(i -> "{}").toList());
    Set<Boolean> virtual = ConcurrentHashMap.newKeySet();
    AtomicInteger running = new AtomicInteger();
    AtomicInteger mostAtOnce = new AtomicInteger();
    Outcomes outcomes = new Outcomes();
    try (QueueRuntime runtime =
        runtime(queue, Receivers.inMemory(), outcomes, Duration.ofSeconds(30))
            .concurrency(300)
            .batchSize(300)
            .handler(
                (job, cancellation) -> {
                  virtual.add(Thread.currentThread().isVirtual());
                  mostAtOnce.accumulateAndGet(running.incrementAndGet(), Math::max);
                  try {
                    Thread.sleep(1_000);
                  } finally {
                    running.decrementAndGet();
                  }
                  return "{}";
                })
            .start()) {
      outcomes.await(WorkOutcome.Completed.class, 300, Duration.ofSeconds(30));
    }
    assertThat(virtual).containsExactly(true);
    // 300 one-second sleeps in 300 slots: far more at once than a platform pool of cores
    assertThat(mostAtOnce.get()).isGreaterThan(100);
    assertThat(outcomes.all()).hasSize(300);
    assertThat(queue.find(ids.getLast()).orElseThrow().state()).isEqualTo(JobState.COMPLETED);
  }

  @Test
  void aSlowHandlerIsRenewedAndFinishesAtItsFirstEpoch(TestSchema schema) throws Exception {
    FencedQueue queue = queue(schema);
    long id = queue.enqueue("q", "{}");
    Outcomes outcomes = new Outcomes();
    QueueStats stats;
    try (QueueRuntime runtime =
        runtime(queue, Receivers.inMemory(), outcomes, Duration.ofSeconds(1))
            .handler(
                (job, cancellation) -> {
                  Thread.sleep(2_500);
                  return "{\"slow\": true}";
                })
            .start()) {
      outcomes.await(WorkOutcome.Completed.class, 1, Duration.ofSeconds(15));
      stats = runtime.stats();
    }
    assertThat(stats.renewed()).isGreaterThanOrEqualTo(2);
    var row = queue.find(id).orElseThrow();
    assertThat(row.state()).isEqualTo(JobState.COMPLETED);
    assertThat(row.epoch()).isEqualTo(1);
    assertThat(row.result()).isEqualTo("{\"slow\": true}");
  }

  @Test
  void shutdownCommitsWhatFinishedAndReleasesTheRest(TestSchema schema) throws Exception {
    FencedQueue queue = queue(schema);
    queue.enqueueAll("q", IntStream.range(0, 20).mapToObj(i -> "{}").toList());
    CountDownLatch running = new CountDownLatch(4);
    Outcomes outcomes = new Outcomes();
    QueueRuntime runtime =
        runtime(queue, Receivers.inMemory(), outcomes, Duration.ofSeconds(30))
            .concurrency(4)
            .prefetch(16)
            .batchSize(20)
            .handler(
                (job, cancellation) -> {
                  running.countDown();
                  Thread.sleep(300);
                  return "{}";
                })
            .start();
    assertThat(running.await(5, TimeUnit.SECONDS)).isTrue();
    assertThat(runtime.shutdown(Duration.ofSeconds(10))).isTrue();
    assertThat(outcomes.of(WorkOutcome.Completed.class)).hasSizeGreaterThanOrEqualTo(4);
    assertThat(outcomes.all())
        .hasSize(20)
        .allMatch(o -> o instanceof WorkOutcome.Completed || o instanceof WorkOutcome.Released);
    assertThat(queue.depth("q").running()).isZero();
  }

  @Test
  void withoutTheSettingHandlersRunOnVirtualThreadsFromJava24(TestSchema schema) throws Exception {
    FencedQueue queue = queue(schema);
    queue.enqueueAll("q", IntStream.range(0, 8).mapToObj(i -> "{}").toList());
    Set<Boolean> virtual = ConcurrentHashMap.newKeySet();
    Outcomes outcomes = new Outcomes();
    try (QueueRuntime runtime =
        HeartbeatTest.runtime(queue, Receivers.inMemory(), outcomes, Duration.ofSeconds(30))
            .handler(
                (job, cancellation) -> {
                  virtual.add(Thread.currentThread().isVirtual());
                  return "{}";
                })
            .start()) {
      outcomes.await(WorkOutcome.Completed.class, 8, Duration.ofSeconds(15));
    }
    assertThat(FencedWorkers.defaultVirtualThreads()).isEqualTo(Runtime.version().feature() >= 24);
    assertThat(virtual).containsExactly(FencedWorkers.defaultVirtualThreads());
  }

  private static FencedQueue queue(TestSchema schema) {
    return PostgresFencing.builder(schema.pooledDataSource(6))
        .schema(schema.name())
        .build()
        .queue();
  }

  private static QueueRuntime.Builder runtime(
      FencedQueue queue, FencedReceiver receiver, Outcomes outcomes, Duration lease) {
    return HeartbeatTest.runtime(queue, receiver, outcomes, lease).virtualThreads(true);
  }
}
