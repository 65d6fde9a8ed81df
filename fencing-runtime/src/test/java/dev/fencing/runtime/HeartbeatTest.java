package dev.fencing.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.FencedOutcome;
import dev.fencing.FencedQueue;
import dev.fencing.FencedReceiver;
import dev.fencing.Job;
import dev.fencing.JobState;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.receiver.Receivers;
import dev.fencing.testkit.db.FencingDatabase;
import dev.fencing.testkit.db.TestSchema;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A lease that is lost, or cannot be kept, stops its handler; nothing is delivered or committed.
 */
@FencingDatabase
class HeartbeatTest {

  @ParameterizedTest(name = "virtual threads: {0}")
  @ValueSource(booleans = {false, true})
  void aRefusedRenewalCancelsAndInterruptsTheHandlerAndNothingIsDeliveredOrCommitted(
      boolean virtualThreads, TestSchema schema) throws Exception {
    FencedQueue real =
        PostgresFencing.builder(schema.pooledDataSource(6)).schema(schema.name()).build().queue();
    FaultyQueue queue = new FaultyQueue(real);
    FencedReceiver receiver = Receivers.inMemory();
    long id = queue.enqueue("q", "{}");
    CountDownLatch running = new CountDownLatch(1);
    AtomicBoolean interrupted = new AtomicBoolean();
    AtomicBoolean sawCancellation = new AtomicBoolean();
    AtomicBoolean ranOnVirtualThread = new AtomicBoolean();
    Outcomes outcomes = new Outcomes();
    try (QueueRuntime runtime =
        runtime(queue, receiver, outcomes, Duration.ofMillis(600))
            .virtualThreads(virtualThreads)
            .prefetch(0) // no free slot: only the thief may claim the job once its lease ran out
            .handler(
                (job, cancellation) -> {
                  ranOnVirtualThread.set(Thread.currentThread().isVirtual());
                  running.countDown();
                  try {
                    Thread.sleep(10_000);
                  } catch (InterruptedException e) {
                    interrupted.set(true);
                    sawCancellation.set(cancellation.isCancelled());
                    throw e;
                  }
                  return "{\"late\": true}";
                })
            .start()) {
      assertThat(running.await(5, TimeUnit.SECONDS)).isTrue();
      // another worker takes the job over: the runtime's renewals are held back (its heartbeat
      // waits, so its own clock gives nothing up) until the lease ran out on the database clock and
      // a thief claimed the job at epoch 2; the renewal then let go is refused
      CountDownLatch stolen = new CountDownLatch(1);
      queue.renewalsHeldUntil = stolen;
      try {
        Job theft = claimOnceTheLeaseRunsOut(real, "thief", Duration.ofSeconds(5));
        assertThat(theft.id()).isEqualTo(id);
        assertThat(theft.epoch().value()).isEqualTo(2);
      } finally {
        stolen.countDown();
      }
      WorkOutcome.FencedOff off =
          outcomes.await(WorkOutcome.FencedOff.class, 1, Duration.ofSeconds(5)).getFirst();
      assertThat(off.stage()).isEqualTo(WorkOutcome.Stage.HEARTBEAT);
      assertThat(off.refusal()).isInstanceOf(FencedOutcome.Superseded.class);
    }
    assertThat(ranOnVirtualThread.get()).isEqualTo(virtualThreads);
    assertThat(interrupted).isTrue();
    assertThat(sawCancellation).isTrue();
    assertThat(outcomes.all()).hasSize(1);
    assertThat(receiver.newest(Long.toString(id))).isEmpty();
    assertThat(queue.find(id).orElseThrow().result()).isNull();
  }

  @Test
  void aLeaseThatCannotBeRenewedIsGivenUpByTheWorkersClockBeforeItRunsOut(TestSchema schema)
      throws Exception {
    FaultyQueue queue =
        new FaultyQueue(
            PostgresFencing.builder(schema.pooledDataSource(6))
                .schema(schema.name())
                .build()
                .queue());
    queue.renewalsFail = true;
    FencedReceiver receiver = Receivers.inMemory();
    long id = queue.enqueue("q", "{}");
    Outcomes outcomes = new Outcomes();
    try (QueueRuntime runtime =
        runtime(queue, receiver, outcomes, Duration.ofMillis(400))
            .handler(
                (job, cancellation) -> {
                  long end = System.nanoTime() + Duration.ofSeconds(2).toNanos();
                  while (!cancellation.isCancelled() && System.nanoTime() < end) {
                    Thread.onSpinWait();
                  }
                  return "{\"late\": true}";
                })
            .start()) {
      WorkOutcome.Abandoned abandoned =
          outcomes.await(WorkOutcome.Abandoned.class, 1, Duration.ofSeconds(5)).getFirst();
      assertThat(abandoned.reason()).contains("could not be renewed before it ran out");
      assertThat(abandoned.job().id()).isEqualTo(id);
      assertThat(abandoned.job().epoch().value()).isEqualTo(1);
      queue.renewalsFail = false;
    }
    // the next claim (epoch 2) may have run meanwhile; epoch 1's result reached nobody
    receiver
        .newest(Long.toString(id))
        .ifPresent(r -> assertThat(r.epoch().value()).isGreaterThan(1));
    assertThat(outcomes.of(WorkOutcome.Completed.class))
        .allSatisfy(c -> assertThat(c.job().epoch().value()).isGreaterThan(1));
  }

  @Test
  void noJobIsHandedToAHandlerWithLessThanTheMarginOfItsLeaseLeft(TestSchema schema)
      throws Exception {
    FaultyQueue queue =
        new FaultyQueue(
            PostgresFencing.builder(schema.pooledDataSource(6))
                .schema(schema.name())
                .build()
                .queue());
    // 70% of a 3 s lease, whose margin is half of it: long enough that a claim delayed on a busy
    // machine still ends before its lease does (at 700 ms of 1 s, one ran out and was claimed
    // again)
    queue.claimAnswerDelay = Duration.ofMillis(2100);
    long id = queue.enqueue("q", "{}");
    AtomicInteger handled = new AtomicInteger();
    Outcomes outcomes = new Outcomes();
    try (QueueRuntime runtime =
        runtime(queue, Receivers.inMemory(), outcomes, Duration.ofSeconds(3))
            .minLeaseLeft(Duration.ofMillis(1500))
            .handler(
                (job, cancellation) -> {
                  handled.incrementAndGet();
                  return "{}";
                })
            .start()) {
      WorkOutcome.Released released =
          outcomes.await(WorkOutcome.Released.class, 1, Duration.ofSeconds(15)).getFirst();
      assertThat(released.reason()).contains("less than minLeaseLeft PT1.5S");
      queue.claimAnswerDelay = Duration.ZERO;
      outcomes.await(WorkOutcome.Completed.class, 1, Duration.ofSeconds(15));
    }
    assertThat(handled).hasValue(1);
    var row = queue.find(id).orElseThrow();
    assertThat(row.state()).isEqualTo(JobState.COMPLETED);
    assertThat(row.attempts()).as("a release counts no attempt").isEqualTo(1);
  }

  @Test
  void aPoolThatReclaimsItsOwnJobUnderTheSameOwnerReportsOneCompletionAtTheNewEpoch(
      TestSchema schema) throws Exception {
    FaultyQueue queue =
        new FaultyQueue(
            PostgresFencing.builder(schema.pooledDataSource(6))
                .schema(schema.name())
                .build()
                .queue());
    FencedReceiver receiver =
        PostgresFencing.builder(schema.pooledDataSource(2))
            .schema(schema.name())
            .build()
            .receiver("default");
    long id = queue.enqueue("q", "{}");
    queue.renewalsFail = true;
    CountDownLatch secondClaim = new CountDownLatch(1);
    Outcomes outcomes = new Outcomes();
    try (QueueRuntime runtime =
        runtime(queue, receiver, outcomes, Duration.ofMillis(300))
            .concurrency(2)
            .handler(
                (job, cancellation) -> {
                  if (job.epoch().value() == 1) {
                    // the first claim's handler outlives its lease and ignores its cancellation
                    long end = System.nanoTime() + Duration.ofSeconds(3).toNanos();
                    while (System.nanoTime() < end && secondClaim.getCount() > 0) {
                      Thread.onSpinWait();
                    }
                    return "{\"epoch\": 1}";
                  }
                  queue.renewalsFail = false;
                  secondClaim.countDown();
                  return "{\"epoch\": " + job.epoch().value() + "}";
                })
            .start()) {
      outcomes.await(WorkOutcome.Completed.class, 1, Duration.ofSeconds(10));
      outcomes.await(WorkOutcome.Abandoned.class, 1, Duration.ofSeconds(10));
    }
    assertThat(outcomes.of(WorkOutcome.Completed.class))
        .singleElement()
        .satisfies(c -> assertThat(c.job().epoch().value()).isEqualTo(2));
    assertThat(outcomes.of(WorkOutcome.Abandoned.class))
        .singleElement()
        .satisfies(a -> assertThat(a.job().epoch().value()).isEqualTo(1));
    var row = queue.find(id).orElseThrow();
    assertThat(row.epoch()).isEqualTo(2);
    assertThat(row.owner()).isEqualTo("w1");
    assertThat(row.result()).isEqualTo("{\"epoch\": 2}");
    assertThat(receiver.newest(Long.toString(id)).orElseThrow().epoch().value()).isEqualTo(2);
  }

  /**
   * Renewing a lease taken a moment ago only competes with its commit for the row (the two batches
   * deadlocked under load, a 1 s stall each): the heartbeat renews only leases older than half an
   * interval. A 2.6 s job on a 3 s lease is renewed; 150 ms jobs running beside it are not.
   */
  @Test
  void onlyLeasesOlderThanHalfAnIntervalAreRenewed(TestSchema schema) throws Exception {
    FencedQueue queue =
        PostgresFencing.builder(schema.pooledDataSource(6)).schema(schema.name()).build().queue();
    long longJob = queue.enqueue("q", "{\"sleep\": 2600}");
    queue.enqueueAll("q", java.util.Collections.nCopies(60, "{\"sleep\": 150}"));
    Outcomes outcomes = new Outcomes();
    QueueStats stats;
    try (QueueRuntime runtime =
        runtime(queue, Receivers.inMemory(), outcomes, Duration.ofSeconds(3))
            .concurrency(4)
            .prefetch(0)
            .heartbeatInterval(Duration.ofSeconds(1))
            .handler(
                (job, cancellation) -> {
                  Thread.sleep(Long.parseLong(job.payload().replaceAll("[^0-9]", "")));
                  return "{}";
                })
            .start()) {
      outcomes.await(WorkOutcome.Completed.class, 61, Duration.ofSeconds(20));
      stats = runtime.stats();
    }
    assertThat(outcomes.of(WorkOutcome.Completed.class))
        .anySatisfy(c -> assertThat(c.job().id()).isEqualTo(longJob));
    // about 3 short jobs were in flight at each of the heartbeats while the long job ran
    assertThat(stats.renewed()).as("renewals: the long job's only").isBetween(1L, 3L);
  }

  static QueueRuntime.Builder runtime(
      FencedQueue queue, FencedReceiver receiver, Outcomes outcomes, Duration lease) {
    return QueueRuntime.builder(queue, receiver)
        .queue("q")
        .owner("w1")
        .concurrency(1)
        .leaseLength(lease)
        .idleWait(Duration.ofMillis(10))
        .drainTimeout(Duration.ofSeconds(2))
        .onOutcome(outcomes);
  }

  /**
   * Claims as {@code owner} until a lease runs out on the database clock, for up to {@code max}.
   */
  static Job claimOnceTheLeaseRunsOut(FencedQueue queue, String owner, Duration max)
      throws InterruptedException {
    long deadline = System.nanoTime() + max.toNanos();
    while (true) {
      Optional<Job> job = queue.claim("q", owner, Duration.ofMinutes(1));
      if (job.isPresent()) {
        return job.get();
      }
      assertThat(System.nanoTime() - deadline).as("no lease ran out within %s", max).isNegative();
      Thread.sleep(20);
    }
  }
}
