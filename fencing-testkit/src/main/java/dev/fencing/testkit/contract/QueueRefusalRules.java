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
import dev.fencing.Renewal;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The fencing half of {@link FencedQueueContract}: what a queue refuses, and what it still accepts
 * beside a refusal. A zombie's writes after a takeover, writes on a finished job, an expired or
 * forged lease, an owner's own older lease, batched writes that mix refused and accepted leases,
 * and bad input refused by name with nothing changed.
 */
abstract class QueueRefusalRules extends QueueOptionRules {

  @Test
  void anExpiredLeaseIsReclaimedAndTheZombieCommitIsRefused() {
    Takeover takeover = takeover("zombie", "healthy");
    long id = takeover.id();
    Job zombie = takeover.zombie();
    Job healthy = takeover.taker();

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

  /**
   * A zombie's batch whose lease ran out, taken over by a claim of one job: the job the claim had
   * no room for was taken from the zombie all the same (an engine may put it back to wait), not
   * ended by it, so the zombie's release of it is refused as expired, not as already finished.
   */
  @Test
  void aZombieWhoseBatchATakeoverTookInPartIsRefusedAsExpiredForTheRest() {
    List<Long> ids = queue.enqueueAll(QUEUE, List.of("{}", "{}"));
    List<Job> zombie = queue.claimBatch(QUEUE, "zombie", SHORT, 2);
    sleepPast(zombie.get(1).lease().expiresAt());
    assertThat(queue.claimBatch(QUEUE, "taker", LONG, 1))
        .extracting(Job::id)
        .containsExactly(ids.get(0));

    Lease left = zombie.get(1).lease();
    assertRefusedAs(
        () -> queue.release(left),
        new FencedOutcome.LeaseExpired(left.key(), Epoch.FIRST, left.expiresAt()));
    assertRefusedAsSuperseded(() -> queue.release(zombie.get(0).lease()));
  }

  @Test
  void aZombieCannotFailRenewOrReleaseEither() {
    Job zombie = takeover("zombie", "healthy").zombie();
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
    assertRefusal(
        () -> queue.complete(job.lease(), "{}"),
        refusal ->
            assertThat(refusal)
                .isInstanceOfSatisfying(
                    FencedOutcome.LeaseExpired.class,
                    r -> assertThat(r.epoch()).isEqualTo(Epoch.FIRST)));
    assertRefusal(
        () -> queue.renew(job.lease(), LONG),
        refusal -> assertThat(refusal).isInstanceOf(FencedOutcome.LeaseExpired.class));
    assertThat(queue.find(id).orElseThrow().result()).isNull();
  }

  @Test
  void aRepeatedCompleteWithTheSameLeaseIsAcceptedAsARepeat() {
    long id = queue.enqueue(QUEUE, "{}");
    Job job = queue.claim(QUEUE, "w1", LONG).orElseThrow();
    assertThat(queue.complete(job.lease(), "{\"r\":1}"))
        .isEqualTo(new FencedOutcome.Accepted(Long.toString(id), Epoch.FIRST, false));
    assertThat(queue.complete(job.lease(), "{\"r\":1}"))
        .isEqualTo(new FencedOutcome.Accepted(Long.toString(id), Epoch.FIRST, true));
    assertRefusedAs(
        () -> queue.complete(job.lease(), "{\"r\":2}"),
        new FencedOutcome.AlreadyFinished(Long.toString(id), Epoch.FIRST, JobState.COMPLETED));
    assertThat(queue.find(id).orElseThrow().result()).isEqualTo("{\"r\": 1}");
  }

  @Test
  void aLeaseWithAnotherOwnerIsRefused() {
    long id = queue.enqueue(QUEUE, "{}");
    Job job = queue.claim(QUEUE, "w1", LONG).orElseThrow();
    Lease forged = new Lease(id, "intruder", job.epoch(), job.lease().expiresAt());
    assertRefusal(
        () -> queue.complete(forged, "{}"),
        refusal -> assertThat(refusal).isInstanceOf(FencedOutcome.NotOwner.class));
    assertThat(queue.find(id).orElseThrow().state()).isEqualTo(JobState.RUNNING);
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
  void sameOwnersOlderLeaseIsRefusedAfterItReclaimedTheJob() {
    Takeover takeover = takeover("p1", "p1");
    long id = takeover.id();
    Job second = takeover.taker();
    Lease old = takeover.zombie().lease();
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
    TwoLeasesEach leases = twoLeasesEach("p1", LONG);
    List<Long> ids = leases.ids();
    List<Job> first = leases.first();
    List<Job> second = leases.second();
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
    TwoLeasesEach leases = twoLeasesEach("p1", Duration.ofSeconds(30));
    List<Long> ids = leases.ids();
    List<Job> first = leases.first();
    List<Job> second = leases.second();

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
}
