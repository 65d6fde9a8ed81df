package dev.fencing.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.FencedQueue;
import dev.fencing.JobSnapshot;
import dev.fencing.JobState;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.receiver.Receivers;
import dev.fencing.testkit.db.FencingDatabase;
import dev.fencing.testkit.db.TestSchema;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * Shutdown keeps every promise: results of handlers that finish in time are committed, jobs not
 * started and jobs still running at the drain timeout are released without burning an attempt,
 * interrupted handlers see their interrupt, a listener that throws an Error stops nothing, and no
 * runtime thread is left behind.
 */
@FencingDatabase
class ShutdownTest {

  @Test
  void runningHandlersFinishAndCommitWhileUnstartedJobsAreReleased(TestSchema schema)
      throws Exception {
    FencedQueue queue = queue(schema);
    List<Long> ids = queue.enqueueAll("q", IntStream.range(0, 10).mapToObj(i -> "{}").toList());
    CountDownLatch twoRunning = new CountDownLatch(2);
    Outcomes outcomes = new Outcomes();
    QueueRuntime runtime =
        QueueRuntime.builder(queue, Receivers.inMemory())
            .queue("q")
            .owner("w1")
            .concurrency(2)
            .prefetch(8)
            .batchSize(10)
            .drainTimeout(Duration.ofSeconds(10))
            .onOutcome(outcomes)
            .handler(
                (job, cancellation) -> {
                  twoRunning.countDown();
                  Thread.sleep(500);
                  return "{\"done\": true}";
                })
            .start();
    assertThat(twoRunning.await(5, TimeUnit.SECONDS)).isTrue();
    assertThat(runtime.shutdown(Duration.ofSeconds(10))).isTrue();

    assertThat(outcomes.of(WorkOutcome.Completed.class)).hasSizeGreaterThanOrEqualTo(2);
    assertThat(outcomes.all())
        .hasSize(10)
        .allMatch(o -> o instanceof WorkOutcome.Completed || o instanceof WorkOutcome.Released);
    for (long id : ids) {
      JobSnapshot row = queue.find(id).orElseThrow();
      assertThat(row.state()).isIn(JobState.COMPLETED, JobState.PENDING);
      if (row.state() == JobState.PENDING) {
        assertThat(row.attempts()).as("a released job burns no attempt").isZero();
      }
    }
    assertNoRuntimeThreadLeft();
  }

  @Test
  void handlersStillRunningAtTheDrainTimeoutAreInterruptedAndTheirJobsReleased(TestSchema schema)
      throws Exception {
    FencedQueue queue = queue(schema);
    List<Long> ids = queue.enqueueAll("q", List.of("{}", "{}"));
    CountDownLatch running = new CountDownLatch(2);
    AtomicBoolean interruptSeen = new AtomicBoolean();
    Outcomes outcomes = new Outcomes();
    QueueRuntime runtime =
        QueueRuntime.builder(queue, Receivers.inMemory())
            .queue("q")
            .owner("w1")
            .concurrency(2)
            .onOutcome(outcomes)
            .handler(
                (job, cancellation) -> {
                  running.countDown();
                  try {
                    Thread.sleep(60_000);
                  } catch (InterruptedException e) {
                    interruptSeen.set(true);
                    throw e;
                  }
                  return "{}";
                })
            .start();
    assertThat(running.await(30, TimeUnit.SECONDS)).isTrue();
    long start = System.nanoTime();
    assertThat(runtime.shutdown(Duration.ofMillis(300))).isFalse();
    // far below the handler's 60 s sleep, with room for a loaded machine (the bound was 5 s)
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(30));

    assertThat(interruptSeen).isTrue();
    assertThat(outcomes.all()).hasSize(2).allMatch(WorkOutcome.Released.class::isInstance);
    for (long id : ids) {
      JobSnapshot row = queue.find(id).orElseThrow();
      assertThat(row.state()).isEqualTo(JobState.PENDING);
      assertThat(row.attempts()).as("an interrupted job burns no attempt").isZero();
      assertThat(row.lastError()).isNull();
    }
    assertNoRuntimeThreadLeft();
  }

  @Test
  void aHandlerThatIgnoresItsInterruptCannotHoldShutdownOrCommitLate(TestSchema schema)
      throws Exception {
    FencedQueue queue = queue(schema);
    long id = queue.enqueue("q", "{}");
    CountDownLatch running = new CountDownLatch(1);
    AtomicBoolean stop = new AtomicBoolean();
    Outcomes outcomes = new Outcomes();
    QueueRuntime runtime =
        QueueRuntime.builder(queue, Receivers.inMemory())
            .queue("q")
            .owner("w1")
            .concurrency(1)
            .onOutcome(outcomes)
            .handler(
                (job, cancellation) -> {
                  running.countDown();
                  while (!stop.get()) {
                    Thread.onSpinWait(); // deaf to interrupts
                  }
                  return "{\"late\": true}";
                })
            .start();
    assertThat(running.await(30, TimeUnit.SECONDS)).isTrue();
    long start = System.nanoTime();
    assertThat(runtime.shutdown(Duration.ofMillis(200))).isFalse();
    // the handler never ends by itself: any bound shows shutdown did not wait for it
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(30));
    stop.set(true);
    Thread.sleep(200);
    assertThat(outcomes.all()).singleElement().isInstanceOf(WorkOutcome.Released.class);
    JobSnapshot row = queue.find(id).orElseThrow();
    assertThat(row.state()).isEqualTo(JobState.PENDING);
    assertThat(row.result()).isNull();
  }

  @Test
  void aListenerThatThrowsAnErrorStopsNothing(TestSchema schema) throws Exception {
    FencedQueue queue = queue(schema);
    List<Long> ids = queue.enqueueAll("q", IntStream.range(0, 50).mapToObj(i -> "{}").toList());
    QueueStats stats;
    try (QueueRuntime runtime =
        QueueRuntime.builder(queue, Receivers.inMemory())
            .queue("q")
            .owner("w1")
            .onOutcome(
                outcome -> {
                  throw new AssertionError("a listener with a bug");
                })
            .handler((job, cancellation) -> "{}")
            .start()) {
      long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
      while (runtime.stats().completed() < 50 && System.nanoTime() < deadline) {
        Thread.sleep(10);
      }
      stats = runtime.stats();
    }
    assertThat(stats.completed()).isEqualTo(50);
    assertThat(stats.callbackErrors()).isEqualTo(50);
    for (long id : ids) {
      assertThat(queue.find(id).orElseThrow().state()).isEqualTo(JobState.COMPLETED);
    }
  }

  private static FencedQueue queue(TestSchema schema) {
    return PostgresFencing.builder(schema.pooledDataSource(6))
        .schema(schema.name())
        .build()
        .queue();
  }

  private static void assertNoRuntimeThreadLeft() {
    assertThat(Thread.getAllStackTraces().keySet())
        .filteredOn(
            t ->
                t.getName().matches("fencing-(claimer|heartbeat|committer|handler)-.*")
                    && t.isAlive())
        .isEmpty();
  }
}
