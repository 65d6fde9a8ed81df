package dev.fencing.testkit.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.CommitOutcome;
import dev.fencing.Epoch;
import dev.fencing.FencedOffException;
import dev.fencing.FencedOutcome;
import dev.fencing.FencedQueue;
import dev.fencing.Job;
import dev.fencing.JobSnapshot;
import dev.fencing.JobState;
import dev.fencing.Lease;
import dev.fencing.QueueDepth;
import dev.fencing.Renewal;
import dev.fencing.testkit.db.FencingDatabase;
import dev.fencing.testkit.db.TestSchema;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The rules every {@link FencedQueue} keeps. A backend's test subclasses this once and says how to
 * build its queue in a fresh schema. Leases expire on the backend's clock, so the tests wait out
 * short leases rather than fake time; a backend whose clock a test can move overrides {@link
 * #pause} to move it instead of sleeping.
 */
@FencingDatabase
public abstract class FencedQueueContract {

  /** A lease long enough never to run out during a test. */
  protected static final Duration LONG = Duration.ofMinutes(5);

  /** A lease short enough to wait out. */
  protected static final Duration SHORT = Duration.ofMillis(300);

  protected static final String QUEUE = "contract";

  protected FencedQueue queue;

  /** Returns the backend's queue, installed in {@code schema}, with at most 3 attempts per job. */
  protected abstract FencedQueue queue(TestSchema schema);

  @BeforeEach
  void createQueue(TestSchema schema) {
    queue = queue(schema);
  }

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
  void anExpiredLeaseIsReclaimedAndTheZombieCommitIsRefused() {
    long id = queue.enqueue(QUEUE, "{}");
    Job zombie = queue.claim(QUEUE, "zombie", SHORT).orElseThrow();
    Job healthy = awaitClaim("healthy");
    assertThat(healthy.id()).isEqualTo(id);
    assertThat(healthy.epoch()).isEqualTo(Epoch.of(2));

    assertThatThrownBy(() -> queue.complete(zombie.lease(), "{\"by\":\"zombie\"}"))
        .isInstanceOfSatisfying(
            FencedOffException.class,
            e -> {
              assertThat(e.refusal())
                  .isEqualTo(
                      new FencedOutcome.Superseded(
                          Long.toString(id), Epoch.FIRST, Epoch.of(2), "healthy"));
              assertThat(e.currentEpoch()).contains(Epoch.of(2));
            });
    JobSnapshot row = queue.find(id).orElseThrow();
    assertThat(row.state()).isEqualTo(JobState.RUNNING);
    assertThat(row.owner()).isEqualTo("healthy");
    assertThat(row.result()).isNull();

    assertThat(queue.complete(healthy.lease(), "{\"by\":\"healthy\"}").repeat()).isFalse();
    assertThat(queue.find(id).orElseThrow().result()).isEqualTo("{\"by\": \"healthy\"}");
  }

  @Test
  void aZombieCannotFailRenewOrReleaseEither() {
    queue.enqueue(QUEUE, "{}");
    Job zombie = queue.claim(QUEUE, "zombie", SHORT).orElseThrow();
    awaitClaim("healthy");
    assertRefusedAsSuperseded(() -> queue.renew(zombie.lease(), LONG));
    assertRefusedAsSuperseded(() -> queue.fail(zombie.lease(), "late", Duration.ZERO));
    assertRefusedAsSuperseded(() -> queue.release(zombie.lease()));
  }

  @Test
  void aCompletedJobCannotBeReleasedFailedOrRenewedWhileItsBatchIsStillOpen() {
    queue.enqueueAll(QUEUE, List.of("{}", "{}"));
    List<Job> batch = queue.claimBatch(QUEUE, "w1", LONG, 2);
    assertThat(batch).hasSize(2);
    Job done = batch.get(0);
    Job open = batch.get(1);
    queue.complete(done.lease(), "{\"done\": true}");

    assertThatThrownBy(() -> queue.release(done.lease())).isInstanceOf(FencedOffException.class);
    assertThatThrownBy(() -> queue.fail(done.lease(), "late", Duration.ZERO))
        .isInstanceOf(FencedOffException.class);
    assertThatThrownBy(() -> queue.renew(done.lease(), LONG))
        .isInstanceOf(FencedOffException.class);
    assertThat(queue.claim(QUEUE, "w2", LONG)).as("the completed job is not handed out").isEmpty();
    JobSnapshot row = queue.find(done.id()).orElseThrow();
    assertThat(row.state()).isEqualTo(JobState.COMPLETED);
    assertThat(row.result()).isEqualTo("{\"done\": true}");
    // the other job of the batch is still its holder's
    assertThat(queue.complete(open.lease(), "{}").repeat()).isFalse();
  }

  @Test
  void anExpiredLeaseNobodyReclaimedIsRefusedAsExpired() {
    long id = queue.enqueue(QUEUE, "{}");
    Job job = queue.claim(QUEUE, "w1", SHORT).orElseThrow();
    sleepPast(job.lease().expiresAt());
    assertThatThrownBy(() -> queue.complete(job.lease(), "{}"))
        .isInstanceOfSatisfying(
            FencedOffException.class,
            e ->
                assertThat(e.refusal())
                    .isInstanceOfSatisfying(
                        FencedOutcome.LeaseExpired.class,
                        r -> assertThat(r.epoch()).isEqualTo(Epoch.FIRST)));
    assertThatThrownBy(() -> queue.renew(job.lease(), LONG))
        .isInstanceOfSatisfying(
            FencedOffException.class,
            e -> assertThat(e.refusal()).isInstanceOf(FencedOutcome.LeaseExpired.class));
    assertThat(queue.find(id).orElseThrow().result()).isNull();
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
  void aRepeatedCompleteWithTheSameLeaseIsAcceptedAsARepeat() {
    long id = queue.enqueue(QUEUE, "{}");
    Job job = queue.claim(QUEUE, "w1", LONG).orElseThrow();
    assertThat(queue.complete(job.lease(), "{\"r\":1}"))
        .isEqualTo(new FencedOutcome.Accepted(Long.toString(id), Epoch.FIRST, false));
    assertThat(queue.complete(job.lease(), "{\"r\":1}"))
        .isEqualTo(new FencedOutcome.Accepted(Long.toString(id), Epoch.FIRST, true));
    assertThatThrownBy(() -> queue.complete(job.lease(), "{\"r\":2}"))
        .isInstanceOfSatisfying(
            FencedOffException.class,
            e ->
                assertThat(e.refusal())
                    .isEqualTo(
                        new FencedOutcome.AlreadyFinished(
                            Long.toString(id), Epoch.FIRST, JobState.COMPLETED)));
    assertThat(queue.find(id).orElseThrow().result()).isEqualTo("{\"r\": 1}");
  }

  @Test
  void aLeaseWithAnotherOwnerIsRefused() {
    long id = queue.enqueue(QUEUE, "{}");
    Job job = queue.claim(QUEUE, "w1", LONG).orElseThrow();
    Lease forged = new Lease(id, "intruder", job.epoch(), job.lease().expiresAt());
    assertThatThrownBy(() -> queue.complete(forged, "{}"))
        .isInstanceOfSatisfying(
            FencedOffException.class,
            e -> assertThat(e.refusal()).isInstanceOf(FencedOutcome.NotOwner.class));
    assertThat(queue.find(id).orElseThrow().state()).isEqualTo(JobState.RUNNING);
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
  void completeAllCommitsWhatItsLeasesStillOwnAndReportsTheRest() {
    long first = queue.enqueue(QUEUE, "{}");
    Job zombie = queue.claim(QUEUE, "zombie", SHORT).orElseThrow();
    sleepPast(zombie.lease().expiresAt());
    List<Long> later = queue.enqueueAll(QUEUE, List.of("{}", "{}"));
    Job reclaimed = queue.claim(QUEUE, "healthy", LONG).orElseThrow();
    assertThat(reclaimed.id())
        .as("the lease ran out before the other jobs were enqueued: it is the oldest ready work")
        .isEqualTo(zombie.id())
        .isEqualTo(first);
    List<Job> fresh = queue.claimBatch(QUEUE, "w1", LONG, 2);
    assertThat(fresh).extracting(Job::id).isEqualTo(later);
    List<CommitOutcome> outcomes =
        queue.completeAll(
            List.of(
                new FencedQueue.Completion(fresh.get(0).lease(), "{\"n\": 1}"),
                new FencedQueue.Completion(zombie.lease(), "{\"n\": 0}"),
                new FencedQueue.Completion(fresh.get(1).lease(), "{\"n\": 2}")));
    assertThat(outcomes)
        .containsExactly(
            new FencedOutcome.Accepted(Long.toString(fresh.get(0).id()), Epoch.FIRST, false),
            new FencedOutcome.Superseded(
                Long.toString(zombie.id()), Epoch.FIRST, Epoch.of(2), "healthy"),
            new FencedOutcome.Accepted(Long.toString(fresh.get(1).id()), Epoch.FIRST, false));
    assertThat(queue.find(zombie.id()).orElseThrow().result()).isNull();
    assertThat(queue.find(fresh.get(1).id()).orElseThrow().result()).isEqualTo("{\"n\": 2}");
    assertThat(
            queue.completeAll(
                List.of(new FencedQueue.Completion(fresh.get(0).lease(), "{\"n\": 1}"))))
        .containsExactly(
            new FencedOutcome.Accepted(Long.toString(fresh.get(0).id()), Epoch.FIRST, true));
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
  void sameOwnersOlderLeaseIsRefusedAfterItReclaimedTheJob() {
    long id = queue.enqueue(QUEUE, "{}");
    Job first = queue.claim(QUEUE, "p1", SHORT).orElseThrow();
    Job second = awaitClaim("p1");
    assertThat(second.id()).isEqualTo(id);
    assertThat(second.epoch()).isEqualTo(Epoch.of(2));
    Lease old = first.lease();
    FencedOutcome.Superseded superseded =
        new FencedOutcome.Superseded(Long.toString(id), Epoch.FIRST, Epoch.of(2), "p1");
    JobSnapshot before = queue.find(id).orElseThrow();

    assertRefusedAs(() -> queue.complete(old, "{\"by\": 1}"), superseded);
    assertRefusedAs(() -> queue.fail(old, "late", Duration.ZERO), superseded);
    assertRefusedAs(() -> queue.renew(old, LONG), superseded);
    assertRefusedAs(() -> queue.release(old), superseded);
    assertThat(queue.completeAll(List.of(new FencedQueue.Completion(old, "{\"by\": 1}"))))
        .containsExactly(superseded);
    assertThat(queue.renewAll(List.of(old), LONG))
        .containsExactly(new Renewal.Lost(old, superseded));
    assertThat(queue.find(id).orElseThrow()).as("nothing changed").isEqualTo(before);

    assertThat(queue.complete(second.lease(), "{\"by\": 2}"))
        .isEqualTo(new FencedOutcome.Accepted(Long.toString(id), Epoch.of(2), false));
    assertThat(queue.find(id).orElseThrow().result()).isEqualTo("{\"by\": 2}");
  }

  @Test
  void sameOwnersTwoLeasesOfOneJobInOneCompleteAllGetTheirOwnOutcomesInEitherOrder() {
    List<Long> ids = queue.enqueueAll(QUEUE, List.of("{}", "{}"));
    List<Job> first = queue.claimBatch(QUEUE, "p1", SHORT, 2);
    sleepPast(first.get(1).lease().expiresAt());
    List<Job> second = queue.claimBatch(QUEUE, "p1", LONG, 2);
    assertThat(second).extracting(Job::id).isEqualTo(ids);
    String a = Long.toString(ids.get(0));
    String b = Long.toString(ids.get(1));

    List<CommitOutcome> outcomes =
        queue.completeAll(
            List.of(
                new FencedQueue.Completion(first.get(0).lease(), "{\"a\": 1}"),
                new FencedQueue.Completion(second.get(0).lease(), "{\"a\": 2}"),
                new FencedQueue.Completion(second.get(1).lease(), "{\"b\": 2}"),
                new FencedQueue.Completion(first.get(1).lease(), "{\"b\": 1}")));

    assertThat(outcomes)
        .containsExactly(
            new FencedOutcome.Superseded(a, Epoch.FIRST, Epoch.of(2), "p1"),
            new FencedOutcome.Accepted(a, Epoch.of(2), false),
            new FencedOutcome.Accepted(b, Epoch.of(2), false),
            new FencedOutcome.Superseded(b, Epoch.FIRST, Epoch.of(2), "p1"));
    assertThat(queue.find(ids.get(0)).orElseThrow().result()).isEqualTo("{\"a\": 2}");
    assertThat(queue.find(ids.get(1)).orElseThrow().result()).isEqualTo("{\"b\": 2}");
  }

  @Test
  void sameOwnersTwoLeasesOfOneJobInOneRenewAllGetTheirOwnOutcomesInEitherOrder() {
    List<Long> ids = queue.enqueueAll(QUEUE, List.of("{}", "{}"));
    List<Job> first = queue.claimBatch(QUEUE, "p1", SHORT, 2);
    sleepPast(first.get(1).lease().expiresAt());
    List<Job> second = queue.claimBatch(QUEUE, "p1", Duration.ofSeconds(30), 2);
    assertThat(second).extracting(Job::id).isEqualTo(ids);

    List<Renewal> renewals =
        queue.renewAll(
            List.of(
                first.get(0).lease(),
                second.get(0).lease(),
                second.get(1).lease(),
                first.get(1).lease()),
            LONG);

    assertThat(renewals)
        .extracting(r -> r.getClass().getSimpleName())
        .containsExactly("Lost", "Renewed", "Renewed", "Lost");
    assertThat(((Renewal.Lost) renewals.get(0)).refusal())
        .isEqualTo(
            new FencedOutcome.Superseded(
                Long.toString(ids.get(0)), Epoch.FIRST, Epoch.of(2), "p1"));
    for (int i : List.of(1, 2)) {
      Lease renewed = renewals.get(i).lease();
      assertThat(renewed.epoch()).isEqualTo(Epoch.of(2));
      assertThat(renewed.expiresAt()).isAfter(second.get(i - 1).lease().expiresAt());
      assertThat(queue.find(renewed.jobId()).orElseThrow().leaseExpiresAt())
          .isEqualTo(renewed.expiresAt());
    }
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

  @Test
  void badInputIsRefusedByNameAndChangesNothing() {
    long id = queue.enqueue(QUEUE, "{}");
    Job job = queue.claim(QUEUE, "w1", LONG).orElseThrow();
    JobSnapshot before = queue.find(id).orElseThrow();
    Lease lease = job.lease();
    assertRefused(() -> queue.claim(QUEUE, "w1", Duration.ZERO), "leaseLength", "PT0S");
    assertRefused(() -> queue.claim(QUEUE, "w1", Duration.ofSeconds(-5)), "leaseLength", "PT-5S");
    assertRefused(() -> queue.claim(QUEUE, "w1", Duration.ofHours(25)), "leaseLength", "PT25H");
    assertRefused(() -> queue.claimBatch(QUEUE, "w1", LONG, 0), "batchSize", "0");
    assertRefused(() -> queue.claimBatch(QUEUE, "w1", LONG, 10_001), "batchSize", "10001");
    assertRefused(() -> queue.claim(QUEUE, "  ", LONG), "owner", "'  '");
    assertRefused(() -> queue.claim(QUEUE, null, LONG), "owner", "null");
    assertRefused(() -> queue.claim("x; drop table", "w1", LONG), "queue", "x; drop table");
    assertRefused(() -> queue.enqueue("Jobs", "{}"), "queue", "Jobs");
    assertRefused(() -> queue.enqueue(QUEUE, "{not json"), "payload", "{not json");
    assertRefused(() -> queue.enqueueAll(QUEUE, List.of("{}", "[1,")), "payloads[1]", "[1,");
    assertRefused(() -> queue.complete(lease, "{\"unclosed\": "), "result", "unclosed");
    assertRefused(() -> queue.renew(lease, Duration.ofDays(2)), "leaseLength", "PT48H");
    assertRefused(() -> queue.fail(lease, "e", Duration.ofSeconds(-1)), "retryDelay", "PT-1S");
    assertRefused(() -> new Lease(0, "w1", Epoch.FIRST, Instant.now()), "jobId", "0");
    assertRefused(() -> Epoch.of(0), "epoch", "0");
    assertRefused(
        () -> queue.complete(new Lease(987_654_321L, "w1", Epoch.FIRST, Instant.now()), "{}"),
        "jobId",
        "987654321");
    assertThat(queue.find(id).orElseThrow()).isEqualTo(before);
    assertThat(queue.claim("other", "w1", LONG)).isEmpty();
    assertThat(queue.claimBatch(QUEUE, "w2", LONG, 10)).isEmpty();
  }

  private static void assertRefused(Runnable call, String parameter, String value) {
    assertThatThrownBy(call::run)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(parameter)
        .hasMessageContaining(value);
  }

  /** Claims for {@code owner} until a lease expires and the claim succeeds, at most 10 s. */
  protected Job awaitClaim(String owner) {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (System.nanoTime() < deadline) {
      Optional<Job> job = queue.claim(QUEUE, owner, LONG);
      if (job.isPresent()) {
        return job.get();
      }
      pause(Duration.ofMillis(25));
    }
    throw new AssertionError("no lease expired within 10 s");
  }

  private static void assertRefusedAs(Runnable write, FencedOutcome.Refused expected) {
    assertThatThrownBy(write::run)
        .isInstanceOfSatisfying(
            FencedOffException.class, e -> assertThat(e.refusal()).isEqualTo(expected));
  }

  private static void assertRefusedAsSuperseded(Runnable write) {
    assertThatThrownBy(write::run)
        .isInstanceOfSatisfying(
            FencedOffException.class,
            e -> assertThat(e.refusal()).isInstanceOf(FencedOutcome.Superseded.class));
  }

  /**
   * Lets time pass until {@code instant} has passed on this clock, plus a margin for clock
   * differences.
   */
  protected void sleepPast(Instant instant) {
    Duration wait = Duration.between(Instant.now(), instant).plusMillis(150);
    if (!wait.isNegative()) {
      pause(wait);
    }
  }

  /**
   * Lets {@code duration} pass on the backend's clock, so that leases and retry delays run out:
   * sleeps, as a backend's clock runs by itself. A backend whose clock the test moves overrides
   * this to move it by {@code duration}.
   */
  protected void pause(Duration duration) {
    try {
      Thread.sleep(duration);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    }
  }
}
