package dev.fencing.testkit.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.Epoch;
import dev.fencing.FencedOutcome;
import dev.fencing.FencedQueue;
import dev.fencing.Job;
import dev.fencing.JobSnapshot;
import dev.fencing.JobState;
import dev.fencing.Lease;
import dev.fencing.QueueDepth;
import dev.fencing.testkit.db.FencingDatabase;
import dev.fencing.testkit.db.TestSchema;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The rules every {@link FencedQueue} keeps. A backend's test subclasses this once and says how to
 * build its queue in a fresh schema ({@link #queue(TestSchema)}). Leases expire on the backend's
 * clock, so the tests wait out short leases rather than fake time; a backend whose clock a test can
 * move overrides {@link #pause} to move it instead of sleeping.
 *
 * <p>The tests here are about claiming, renewing, failing and counting; those about what the queue
 * refuses (a zombie's writes, finished jobs, bad input) and those about job options (run later,
 * priorities) are inherited, and run for every subclass as well.
 *
 * @since 0.1
 */
@FencingDatabase
public abstract class FencedQueueContract extends QueueCancelRules {

  @Test
  void claimReturnsEmptyWhenNothingIsDue() {
    assertThat(queue.claim(QUEUE, "w1", LONG)).isEmpty();
    assertThat(queue.claimBatch(QUEUE, "w1", LONG, 10)).isEmpty();
  }

  @Test
  void everyClaimTakesALargerEpoch() {
    long id = queue.enqueue(QUEUE, "{\"n\":1}");
    Job first = queue.claim(QUEUE, "w1", LONG).orElseThrow();
    assertThat(first.id()).isEqualTo(id);
    assertThat(first.epoch()).isEqualTo(Epoch.FIRST);
    assertThat(first.payload()).isEqualTo("{\"n\": 1}");
    queue.release(first.lease());
    Job second = queue.claim(QUEUE, "w2", LONG).orElseThrow();
    assertThat(second.epoch()).isEqualTo(Epoch.of(2));
    assertThat(second.lease().owner()).isEqualTo("w2");
  }

  @Test
  void aClaimedJobIsNotClaimedAgainWhileItsLeaseRuns() {
    queue.enqueue(QUEUE, "{}");
    assertThat(queue.claim(QUEUE, "w1", LONG)).isPresent();
    assertThat(queue.claim(QUEUE, "w2", LONG)).isEmpty();
  }

  @Test
  void renewExtendsTheLease() {
    queue.enqueue(QUEUE, "{}");
    Job job = queue.claim(QUEUE, "w1", Duration.ofSeconds(30)).orElseThrow();
    Lease renewed = queue.renew(job.lease(), Duration.ofMinutes(10));
    assertThat(renewed.expiresAt()).isAfter(job.lease().expiresAt());
    assertThat(renewed.epoch()).isEqualTo(job.epoch());
    assertThat(queue.complete(renewed, "{}").isAccepted()).isTrue();
  }

  @Test
  void failRetriesUntilAttemptsRunOutThenEndsFailed() {
    long id = queue.enqueue(QUEUE, "{}");
    for (int attempt = 1; attempt <= 3; attempt++) {
      Job job = queue.claim(QUEUE, "w1", LONG).orElseThrow();
      assertThat(job.attempt()).isEqualTo(attempt);
      queue.fail(job.lease(), "boom " + attempt, Duration.ZERO);
    }
    JobSnapshot row = queue.find(id).orElseThrow();
    assertThat(row.state()).isEqualTo(JobState.FAILED);
    assertThat(row.lastError()).isEqualTo("boom 3");
    assertThat(row.epoch()).isEqualTo(3);
    assertThat(queue.claim(QUEUE, "w1", LONG)).isEmpty();
  }

  @Test
  void failFinallyEndsTheJobFailedAtOnceThoughAttemptsAreLeft() {
    long id = queue.enqueue(QUEUE, "{}");
    Job job = queue.claim(QUEUE, "w1", LONG).orElseThrow();
    assertThat(queue.find(id).orElseThrow().maxAttempts()).isGreaterThan(job.attempt());

    assertThat(queue.failFinally(job.lease(), "payload does not decode"))
        .isEqualTo(new FencedOutcome.Accepted(Long.toString(id), Epoch.FIRST, false));
    JobSnapshot row = queue.find(id).orElseThrow();
    assertThat(row.state()).isEqualTo(JobState.FAILED);
    assertThat(row.lastError()).isEqualTo("payload does not decode");
    assertThat(row.attempts()).isEqualTo(1);
    assertThat(row.epoch()).isEqualTo(1);
    assertThat(queue.depth(QUEUE)).isEqualTo(new QueueDepth(0, 0, 1));
    assertThat(queue.claim(QUEUE, "w2", LONG)).isEmpty();

    // the acknowledgement was lost: the same call again is a repeat, and changes nothing
    assertThat(queue.failFinally(job.lease(), "payload does not decode"))
        .isEqualTo(new FencedOutcome.Accepted(Long.toString(id), Epoch.FIRST, true));
    assertRefusal(
        () -> queue.failFinally(job.lease(), "another error"),
        refusal -> assertThat(refusal).isInstanceOf(FencedOutcome.AlreadyFinished.class));
    assertThat(queue.find(id).orElseThrow()).isEqualTo(row);
    assertThat(queue.claim(QUEUE, "w2", LONG)).isEmpty();
  }

  @Test
  void aZombiesFailFinallyIsRefusedAndLeavesTheHoldersJobRunning() {
    Takeover takeover = takeover("zombie", "healthy");
    assertRefusal(
        () -> queue.failFinally(takeover.zombie().lease(), "late"),
        refusal ->
            assertThat(refusal)
                .isEqualTo(
                    new FencedOutcome.Superseded(
                        Long.toString(takeover.id()), Epoch.FIRST, Epoch.of(2), "healthy")));
    JobSnapshot row = queue.find(takeover.id()).orElseThrow();
    assertThat(row.state()).isEqualTo(JobState.RUNNING);
    assertThat(row.owner()).isEqualTo("healthy");
    assertThat(row.lastError()).isNotEqualTo("late");
    assertThat(queue.complete(takeover.taker().lease(), "{}").repeat()).isFalse();
  }

  @Test
  void depthCountsPendingRunningAndFailedJobsOfOneQueueOnly() {
    assertThat(queue.depth(QUEUE)).isEqualTo(new QueueDepth(0, 0, 0));
    queue.enqueue(QUEUE, "{}");
    for (int attempt = 1; attempt <= 3; attempt++) {
      queue.fail(queue.claim(QUEUE, "w1", LONG).orElseThrow().lease(), "boom", Duration.ZERO);
    }
    queue.enqueueAll(QUEUE, List.of("{}", "{}", "{}", "{}"));
    queue.enqueue("another_queue", "{}");
    queue.complete(queue.claim(QUEUE, "w1", LONG).orElseThrow().lease(), "{}");
    queue.claim(QUEUE, "w2", LONG).orElseThrow();
    assertThat(queue.depth(QUEUE)).isEqualTo(new QueueDepth(2, 1, 1));
    assertThat(queue.depth("another_queue")).isEqualTo(new QueueDepth(1, 0, 0));
    assertThatThrownBy(() -> queue.depth("Bad Name"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("queue")
        .hasMessageContaining("Bad Name");
  }

  @Test
  void failWaitsOutTheRetryDelay() {
    long id = queue.enqueue(QUEUE, "{}");
    Job job = queue.claim(QUEUE, "w1", LONG).orElseThrow();
    queue.fail(job.lease(), "later", Duration.ofHours(1));
    JobSnapshot row = queue.find(id).orElseThrow();
    assertThat(row.state()).isEqualTo(JobState.PENDING);
    assertThat(row.runAt()).isAfter(Instant.now().plus(Duration.ofMinutes(59)));
    assertThat(queue.claim(QUEUE, "w1", LONG)).isEmpty();
  }

  @Test
  void releaseMakesTheJobClaimableWithoutCountingAnAttempt() {
    long id = queue.enqueue(QUEUE, "{}");
    Job job = queue.claim(QUEUE, "w1", LONG).orElseThrow();
    queue.release(job.lease());
    assertThat(queue.find(id).orElseThrow().attempts()).isZero();
    assertThat(queue.claim(QUEUE, "w2", LONG).orElseThrow().attempt()).isEqualTo(1);
  }

  @Test
  void enqueueAllReturnsEachPayloadsIdInThePayloadsOrder() {
    List<String> payloads =
        java.util.stream.IntStream.range(0, 300).mapToObj(i -> "{\"n\": " + i + "}").toList();
    List<Long> ids = queue.enqueueAll(QUEUE, payloads);
    assertThat(ids).hasSize(300).isSorted().doesNotHaveDuplicates();
    for (int i = 0; i < payloads.size(); i += 37) {
      assertThat(queue.find(ids.get(i)).orElseThrow().payload()).isEqualTo(payloads.get(i));
    }
    assertThat(queue.find(ids.getLast()).orElseThrow().payload()).isEqualTo(payloads.getLast());
  }

  @Test
  void batchClaimTakesDistinctJobsUpToTheBatchSize() {
    List<Long> ids = queue.enqueueAll(QUEUE, List.of("{}", "{}", "{}", "{}", "{}"));
    List<Job> first = queue.claimBatch(QUEUE, "w1", LONG, 3);
    List<Job> second = queue.claimBatch(QUEUE, "w2", LONG, 3);
    assertThat(first).hasSize(3).allMatch(j -> j.epoch().equals(Epoch.FIRST));
    assertThat(second).hasSize(2);
    assertThat(first.stream().map(Job::id).toList())
        .doesNotContainAnyElementsOf(second.stream().map(Job::id).toList());
    assertThat(
            java.util.stream.Stream.concat(first.stream(), second.stream())
                .map(Job::id)
                .sorted()
                .toList())
        .isEqualTo(ids);
  }

  @Test
  void claimableWorkIsServedOldestReadyFirstAcrossPendingJobsAndExpiredLeases() {
    long a = queue.enqueue(QUEUE, "{}");
    Job zombie = queue.claim(QUEUE, "zombie", SHORT).orElseThrow();
    long b = queue.enqueue(QUEUE, "{}");
    sleepPast(zombie.lease().expiresAt());
    long c = queue.enqueue(QUEUE, "{}");
    Job first = queue.claim(QUEUE, "healthy", LONG).orElseThrow();
    Job second = queue.claim(QUEUE, "healthy", LONG).orElseThrow();
    Job third = queue.claim(QUEUE, "healthy", LONG).orElseThrow();
    assertThat(List.of(first.id(), second.id(), third.id()))
        .as("b was due before a's lease ran out, and c after")
        .containsExactly(b, a, c);
    assertThat(second.epoch()).isEqualTo(Epoch.of(2));
  }

  @Test
  void aBatchTakesExpiredLeasesAndPendingJobsTogether() {
    List<Long> ids = queue.enqueueAll(QUEUE, List.of("{}", "{}"));
    List<Job> zombies = queue.claimBatch(QUEUE, "zombie", SHORT, 2);
    sleepPast(zombies.get(1).lease().expiresAt());
    long later = queue.enqueue(QUEUE, "{}");
    List<Job> batch = queue.claimBatch(QUEUE, "healthy", LONG, 3);
    assertThat(batch).extracting(Job::id).containsExactly(ids.get(0), ids.get(1), later);
    assertThat(batch).extracting(Job::epoch).containsExactly(Epoch.of(2), Epoch.of(2), Epoch.FIRST);
  }

  @Test
  void queuesAreSeparate() {
    queue.enqueue("other", "{}");
    assertThat(queue.claim(QUEUE, "w1", LONG)).isEmpty();
    assertThat(queue.claim("other", "w1", LONG)).isPresent();
  }

  @Test
  void findReturnsEmptyForAnUnknownJob() {
    assertThat(queue.find(987_654_321L)).isEmpty();
  }
}
