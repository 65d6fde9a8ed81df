package dev.fencing.testkit.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.CommitOutcome;
import dev.fencing.Enqueued;
import dev.fencing.Epoch;
import dev.fencing.FencedOffException;
import dev.fencing.FencedOutcome;
import dev.fencing.FencedQueue;
import dev.fencing.Job;
import dev.fencing.JobSnapshot;
import dev.fencing.JobState;
import dev.fencing.KeyedJob;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * What the queue in memory does beyond the contract's rules: time that a test moves, attempts used
 * up by leases that ran out, keyed enqueues, repeats of writes that give a job back, errors kept as
 * PostgreSQL keeps them, and many threads at once. (The outbox and retention: {@link
 * InMemoryOutboxAndRetentionTest}; wake-ups: {@link InMemoryWakeUpsTest}.)
 */
class InMemoryQueueTest {

  private static final Duration LEASE = Duration.ofSeconds(30);

  private final ManualClock clock = ManualClock.at(Instant.parse("2030-01-01T00:00:00Z"));
  private final InMemoryQueue queue = InMemoryQueue.builder().clock(clock).maxAttempts(2).build();

  @Test
  void aLeaseRunsOutWhenTheClockMovesAndTheZombieIsRefusedWithoutASleep() {
    long id = queue.enqueue("q", "{\"to\": \"ada\"}");
    Job zombie = queue.claim("q", "w1", LEASE).orElseThrow();
    assertThat(zombie.lease().expiresAt()).isEqualTo(clock.instant().plus(LEASE));
    clock.advance(LEASE.minusNanos(1_000));
    assertThat(queue.claim("q", "w2", LEASE)).as("a microsecond of the lease is left").isEmpty();

    clock.advance(Duration.ofNanos(1_000));
    Job healthy = queue.claim("q", "w2", LEASE).orElseThrow();

    assertThat(healthy.epoch()).isEqualTo(Epoch.of(2));
    assertThatThrownBy(() -> queue.complete(zombie.lease(), "{}"))
        .isInstanceOfSatisfying(
            FencedOffException.class,
            e ->
                assertThat(e.refusal())
                    .isEqualTo(
                        new FencedOutcome.Superseded(
                            Long.toString(id), Epoch.FIRST, Epoch.of(2), "w2")));
  }

  @Test
  void aLeaseThatRunsOutOnTheLastAttemptEndsTheJobFailedAtItsEpoch() {
    long id = queue.enqueue("q", "{}");
    queue.claim("q", "w1", LEASE).orElseThrow();
    clock.advance(LEASE);
    queue.claim("q", "w2", LEASE).orElseThrow();
    clock.advance(LEASE);

    assertThat(queue.claim("q", "w3", LEASE)).isEmpty();

    JobSnapshot row = queue.find(id).orElseThrow();
    assertThat(row.state()).isEqualTo(JobState.FAILED);
    assertThat(row.epoch()).isEqualTo(2);
    assertThat(row.owner()).isEqualTo("w2");
    assertThat(row.lastError()).isEqualTo("lease ran out 2 times; 2 of 2 attempts used");
    assertThat(row.leaseExpiresAt()).isNull();
    assertThat(queue.depth("q").failed()).isEqualTo(1);
  }

  @Test
  void aJobOfOneAttemptWhoseLeaseRanOutOnceSaysOnce() {
    InMemoryQueue once = InMemoryQueue.builder().clock(clock).maxAttempts(1).build();
    long id = once.enqueue("q", "{}");
    once.claim("q", "w1", LEASE).orElseThrow();
    clock.advance(LEASE);
    assertThat(once.claimBatch("q", "w2", LEASE, 10)).isEmpty();
    assertThat(once.find(id).orElseThrow().lastError())
        .isEqualTo("lease ran out once; 1 of 1 attempts used");
  }

  @Test
  void aKeyFindsItsJobWhenThePayloadIsEqualAsJsonbComparesIt() {
    List<Enqueued> first =
        queue.enqueueKeyed("q", List.of(new KeyedJob("b", "{\"n\": 1}"), new KeyedJob("a", "[]")));
    assertThat(first).extracting(Enqueued::created).containsExactly(true, true);
    assertThat(first.get(1).id())
        .as("new jobs are numbered in the order of their keys")
        .isLessThan(first.get(0).id());

    Enqueued again = queue.enqueue("q", new KeyedJob("b", "{\"n\":1.0}"));

    assertThat(again).isEqualTo(new Enqueued(first.get(0).id(), "b", false));
    assertThat(queue.enqueue("other", new KeyedJob("b", "{}")).created())
        .as("keys are per queue")
        .isTrue();
  }

  @Test
  void aKeyTakenWithAnotherPayloadRefusesTheWholeCallAndWritesNothing() {
    long taken = queue.enqueue("q", new KeyedJob("k", "{\"n\": 1}")).id();
    assertThatThrownBy(
            () ->
                queue.enqueueKeyed(
                    "q", List.of(new KeyedJob("new", "{}"), new KeyedJob("k", "{\"n\": 2}"))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "jobs[1].key 'k' already names job "
                + taken
                + " of queue 'q' with a different payload; nothing was enqueued");
    assertThat(queue.depth("q").pending()).isEqualTo(1);
    assertThatThrownBy(() -> queue.enqueue("q", new KeyedJob("x", "{oops")))
        .hasMessageStartingWith("jobs[0].payload must be JSON");
  }

  @Test
  void aRepeatedFailOrReleaseIsAcceptedAsARepeatEvenAfterTheJobWasClaimedAgain() {
    long id = queue.enqueue("q", "{}");
    Job first = queue.claim("q", "w1", LEASE).orElseThrow();
    queue.release(first.lease());
    assertThat(queue.release(first.lease()).repeat()).isTrue();
    Job second = queue.claim("q", "w1", LEASE).orElseThrow();
    assertThat(queue.release(first.lease()).repeat()).as("its mark outlives the claim").isTrue();

    queue.fail(second.lease(), "boom", Duration.ZERO);
    assertThat(queue.fail(second.lease(), "boom", Duration.ZERO).repeat()).isTrue();
    assertThatThrownBy(() -> queue.fail(second.lease(), "another error", Duration.ZERO))
        .isInstanceOfSatisfying(
            FencedOffException.class,
            e ->
                assertThat(e.refusal())
                    .isEqualTo(
                        new FencedOutcome.AlreadyFinished(
                            Long.toString(id), Epoch.of(2), JobState.PENDING)));
    queue.claim("q", "w2", LEASE).orElseThrow();
    assertThat(queue.fail(second.lease(), "boom", Duration.ZERO).repeat()).isTrue();
    assertThatThrownBy(() -> queue.release(second.lease()))
        .as("it failed the job; it never released it")
        .isInstanceOf(FencedOffException.class);
  }

  @Test
  void anErrorIsKeptAsPostgresqlKeepsIt() {
    long id = queue.enqueue("q", "{}");
    Job job = queue.claim("q", "w1", LEASE).orElseThrow();
    String emoji = "\uD83D\uDE00";
    queue.fail(job.lease(), "a\u0000b\uD800" + "x".repeat(3_995) + emoji, Duration.ZERO);
    assertThat(queue.find(id).orElseThrow().lastError())
        .as("NUL and a lone surrogate replaced; cut before a pair that does not fit")
        .isEqualTo("a\uFFFDb\uFFFD" + "x".repeat(3_995))
        .hasSize(3_999);
  }

  @Test
  void aRetryDelayAndAReleaseAreJudgedOnTheQueuesClock() {
    long id = queue.enqueue("q", "{}");
    queue.fail(queue.claim("q", "w1", LEASE).orElseThrow().lease(), "later", Duration.ofHours(1));
    assertThat(queue.find(id).orElseThrow().runAt())
        .isEqualTo(clock.instant().plus(Duration.ofHours(1)));
    clock.advance(Duration.ofMinutes(59));
    assertThat(queue.claim("q", "w1", LEASE)).isEmpty();
    clock.advance(Duration.ofMinutes(1));
    Job again = queue.claim("q", "w1", LEASE).orElseThrow();
    assertThat(again.attempt()).isEqualTo(2);
  }

  @Test
  void completeAllCommitsTheOthersWhenOneResultIsNotJson() {
    List<Long> ids = queue.enqueueAll("q", List.of("{}", "{}"));
    List<Job> jobs = queue.claimBatch("q", "w1", LEASE, 2);
    List<CommitOutcome> outcomes =
        queue.completeAll(
            List.of(
                new FencedQueue.Completion(jobs.get(0).lease(), "{\"ok\":true}"),
                new FencedQueue.Completion(jobs.get(1).lease(), "{\"unclosed\": ")));
    assertThat(outcomes.get(0))
        .isEqualTo(new FencedOutcome.Accepted(key(ids, 0), Epoch.FIRST, false));
    assertThat(outcomes.get(1))
        .isInstanceOfSatisfying(
            CommitOutcome.Invalid.class,
            invalid ->
                assertThat(invalid.error())
                    .hasMessageStartingWith(
                        "completions[1].result must be JSON that PostgreSQL jsonb accepts"));
    assertThat(queue.find(ids.get(0)).orElseThrow().result()).isEqualTo("{\"ok\": true}");
    assertThat(queue.find(ids.get(1)).orElseThrow().state()).isEqualTo(JobState.RUNNING);
  }

  @Test
  void manyThreadsClaimingAndCommittingAtOnceFinishEveryJobOnceAtItsFirstEpoch() throws Exception {
    InMemoryQueue shared = InMemoryQueue.builder().build();
    List<Long> ids = shared.enqueueAll("q", IntStream.range(0, 2_000).mapToObj(i -> "{}").toList());
    AtomicInteger completed = new AtomicInteger();
    ConcurrentHashMap<Long, String> doneBy = new ConcurrentHashMap<>();
    List<Future<?>> workers = new ArrayList<>();
    try (ExecutorService pool = Executors.newFixedThreadPool(8)) {
      for (int w = 0; w < 8; w++) {
        String owner = "w" + w;
        workers.add(
            pool.submit(
                () -> {
                  Optional<Job> job;
                  while ((job = shared.claim("q", owner, LEASE)).isPresent()) {
                    shared.complete(job.get().lease(), "{\"by\": \"" + owner + "\"}");
                    assertThat(doneBy.putIfAbsent(job.get().id(), owner)).isNull();
                    completed.incrementAndGet();
                  }
                }));
      }
      for (Future<?> worker : workers) {
        worker.get();
      }
    }
    assertThat(completed).hasValue(2_000);
    for (long id : ids) {
      JobSnapshot row = shared.find(id).orElseThrow();
      assertThat(row.epoch()).isEqualTo(1);
      assertThat(row.result()).isEqualTo("{\"by\": \"" + doneBy.get(id) + "\"}");
    }
  }

  @Test
  void settingsAreCheckedByNameAndTheQueueSaysWhatItHolds() {
    assertThatThrownBy(() -> InMemoryQueue.builder().maxAttempts(0).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("maxAttempts must be between 1 and 1000, but was 0");
    assertThatThrownBy(() -> InMemoryQueue.builder().clock(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("clock");
    queue.enqueueAll("q", List.of("{}", "{}"));
    assertThat(queue).hasToString("in-memory queue (2 jobs, " + clock + ")");
  }

  private static String key(List<Long> ids, int i) {
    return Long.toString(ids.get(i));
  }
}
