package dev.fencing.testkit.contract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.CancelResult;
import dev.fencing.CommitOutcome;
import dev.fencing.Epoch;
import dev.fencing.FencedOutcome;
import dev.fencing.FencedQueue;
import dev.fencing.Job;
import dev.fencing.JobSnapshot;
import dev.fencing.JobState;
import dev.fencing.Lease;
import dev.fencing.Renewal;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The cancel half of {@link FencedQueueContract}: a cancelled job ends failed and is never handed
 * out again, every write of every lease it was handed out under is refused as {@link
 * FencedOutcome.Cancelled}, a second cancel is a repeat, and an ended or unknown job is left as it
 * is.
 */
abstract class QueueCancelRules extends QueueRefusalRules {

  @Test
  void cancelPendingIsNeverHandedOut() {
    long id = queue.enqueue(QUEUE, "{}");
    CancelResult result = queue.cancel(id, "not needed");
    assertThat(result)
        .isInstanceOfSatisfying(
            CancelResult.Cancelled.class,
            c -> {
              assertThat(c.jobId()).isEqualTo(id);
              assertThat(c.was()).isEqualTo(JobState.PENDING);
              assertThat(c.fence()).isGreaterThanOrEqualTo(Epoch.FIRST);
              assertThat(c.repeat()).isFalse();
            });
    assertThat(queue.claimBatch(QUEUE, "w1", LONG, 10)).isEmpty();
    JobSnapshot row = queue.find(id).orElseThrow();
    assertThat(row.state()).isEqualTo(JobState.FAILED);
    assertThat(row.lastError()).isEqualTo("cancelled: not needed");
    assertThat(row.leaseExpiresAt()).isNull();
    assertThat(queue.depth(QUEUE).pending()).isZero();
    assertThat(queue.depth(QUEUE).failed()).isEqualTo(1);
  }

  @Test
  void cancelRunningRefusesRenewCompleteFailReleaseWithCancelled() {
    long id = queue.enqueue(QUEUE, "{}");
    Lease lease = queue.claim(QUEUE, "w1", LONG).orElseThrow().lease();
    CancelResult.Cancelled cancelled = cancelled(queue.cancel(id, "stop"));
    assertThat(cancelled.was()).isEqualTo(JobState.RUNNING);
    assertThat(cancelled.fence()).isGreaterThan(lease.epoch());
    assertThat(cancelled.repeat()).isFalse();

    FencedOutcome.Cancelled refusal =
        new FencedOutcome.Cancelled(lease.key(), lease.epoch(), "stop");
    assertRefusedAs(() -> queue.renew(lease, LONG), refusal);
    assertRefusedAs(() -> queue.complete(lease, "{}"), refusal);
    assertRefusedAs(() -> queue.fail(lease, "late", Duration.ZERO), refusal);
    assertRefusedAs(() -> queue.failFinally(lease, "late"), refusal);
    assertRefusedAs(() -> queue.release(lease), refusal);
    assertThat(queue.renewAll(List.of(lease), LONG))
        .containsExactly(new Renewal.Lost(lease, refusal));
    assertThat(queue.completeAll(List.of(new FencedQueue.Completion(lease, "{}", List.of()))))
        .containsExactly(refusal);

    assertThat(queue.claim(QUEUE, "w2", LONG)).isEmpty();
    JobSnapshot row = queue.find(id).orElseThrow();
    assertThat(row.state()).isEqualTo(JobState.FAILED);
    assertThat(row.lastError()).isEqualTo("cancelled: stop");
    assertThat(row.result()).isNull();
    assertThat(row.leaseExpiresAt()).isNull();
  }

  @Test
  void cancelIsIdempotentAndReportsRepeat() {
    long id = queue.enqueue(QUEUE, "{}");
    Lease lease = queue.claim(QUEUE, "w1", LONG).orElseThrow().lease();
    CancelResult.Cancelled first = cancelled(queue.cancel(id, "first"));
    assertThat(queue.cancel(id, "second"))
        .isEqualTo(new CancelResult.Cancelled(id, JobState.RUNNING, first.fence(), true));
    assertThat(queue.cancel(id))
        .isEqualTo(new CancelResult.Cancelled(id, JobState.RUNNING, first.fence(), true));
    assertThat(queue.find(id).orElseThrow().lastError()).isEqualTo("cancelled: first");
    assertRefusedAs(
        () -> queue.complete(lease, "{}"),
        new FencedOutcome.Cancelled(lease.key(), lease.epoch(), "first"));
  }

  @Test
  void cancelWithoutAReasonSaysCancelled() {
    long id = queue.enqueue(QUEUE, "{}");
    Lease lease = queue.claim(QUEUE, "w1", LONG).orElseThrow().lease();
    assertThat(cancelled(queue.cancel(id)).was()).isEqualTo(JobState.RUNNING);
    assertThat(queue.find(id).orElseThrow().lastError()).isEqualTo("cancelled");
    assertRefusedAs(
        () -> queue.complete(lease, "{}"),
        new FencedOutcome.Cancelled(lease.key(), lease.epoch(), null));
  }

  @Test
  void cancelOfAFinishedJobChangesNothing() {
    long done = queue.enqueue(QUEUE, "{}");
    Lease lease = queue.claim(QUEUE, "w1", LONG).orElseThrow().lease();
    queue.complete(lease, "{\"r\": 1}");
    JobSnapshot before = queue.find(done).orElseThrow();
    assertThat(queue.cancel(done, "late"))
        .isEqualTo(new CancelResult.AlreadyEnded(done, JobState.COMPLETED));
    assertThat(queue.find(done).orElseThrow()).isEqualTo(before);

    long failed = queue.enqueue(QUEUE, "{}");
    for (int attempt = 0; attempt < 3; attempt++) {
      Job job = queue.claim(QUEUE, "w1", LONG).orElseThrow();
      assertThat(job.id()).isEqualTo(failed);
      queue.fail(job.lease(), "boom", Duration.ZERO);
    }
    JobSnapshot failedBefore = queue.find(failed).orElseThrow();
    assertThat(failedBefore.state()).isEqualTo(JobState.FAILED);
    assertThat(queue.cancel(failed))
        .isEqualTo(new CancelResult.AlreadyEnded(failed, JobState.FAILED));
    assertThat(queue.find(failed).orElseThrow()).isEqualTo(failedBefore);
  }

  @Test
  void cancelOfAnUnknownJobIsNotFound() {
    long id = queue.enqueue(QUEUE, "{}");
    assertThat(queue.cancel(id + 1_000_000, "x"))
        .isEqualTo(new CancelResult.NotFound(id + 1_000_000));
    assertRefused(() -> queue.cancel(0, "x"), "jobId", "0");
    assertRefused(() -> queue.cancel(id, " "), "reason", "' '");
    assertThat(queue.find(id).orElseThrow().state()).isEqualTo(JobState.PENDING);
  }

  @Test
  void aRetryOfACommitThatLandedBeforeTheCancelIsARepeat() {
    long id = queue.enqueue(QUEUE, "{}");
    Lease lease = queue.claim(QUEUE, "w1", LONG).orElseThrow().lease();
    assertThat(queue.complete(lease, "{\"r\": 1}").repeat()).isFalse();
    assertThat(queue.cancel(id, "too late"))
        .isEqualTo(new CancelResult.AlreadyEnded(id, JobState.COMPLETED));
    assertThat(queue.complete(lease, "{\"r\": 1}"))
        .isEqualTo(new FencedOutcome.Accepted(lease.key(), lease.epoch(), true));
    assertThat(
            queue.completeAll(List.of(new FencedQueue.Completion(lease, "{\"r\": 1}", List.of()))))
        .containsExactly(new FencedOutcome.Accepted(lease.key(), lease.epoch(), true));
    assertThat(queue.find(id).orElseThrow().result()).isEqualTo("{\"r\": 1}");
  }

  @Test
  void aJobWaitingForItsRetryIsCancelledAsPending() {
    long id = queue.enqueue(QUEUE, "{}");
    Lease lease = queue.claim(QUEUE, "w1", LONG).orElseThrow().lease();
    queue.fail(lease, "boom", Duration.ofHours(1));
    CancelResult.Cancelled cancelled = cancelled(queue.cancel(id, "give up"));
    assertThat(cancelled.was()).isEqualTo(JobState.PENDING);
    assertThat(cancelled.fence()).isGreaterThan(lease.epoch());
    assertThat(queue.find(id).orElseThrow().lastError()).isEqualTo("cancelled: give up");
    // the job will not run again: a late write of the lease hears why
    assertRefusedAs(
        () -> queue.release(lease),
        new FencedOutcome.Cancelled(lease.key(), lease.epoch(), "give up"));
  }

  @Test
  void anOlderExpiredLeaseIsRefusedCancelledToo() {
    Takeover takeover = takeover("zombie", "healthy");
    Lease zombie = takeover.zombie().lease();
    Lease healthy = takeover.taker().lease();
    CancelResult.Cancelled cancelled = cancelled(queue.cancel(takeover.id(), "why"));
    assertThat(cancelled.was()).isEqualTo(JobState.RUNNING);
    assertThat(cancelled.fence()).isGreaterThan(healthy.epoch());
    for (Lease lease : List.of(zombie, healthy)) {
      FencedOutcome.Cancelled refusal =
          new FencedOutcome.Cancelled(lease.key(), lease.epoch(), "why");
      assertRefusedAs(() -> queue.complete(lease, "{}"), refusal);
      assertRefusedAs(() -> queue.renew(lease, LONG), refusal);
      assertRefusedAs(() -> queue.fail(lease, "late", Duration.ZERO), refusal);
    }
    assertThat(queue.claim(QUEUE, "w3", LONG)).isEmpty();
  }

  @Test
  void cancelWithTheSameOwnerClaimingTwice() {
    TwoLeasesEach leases = twoLeasesEach("w1", LONG);
    long cancelledId = leases.ids().get(0);
    cancelled(queue.cancel(cancelledId, "one of two"));
    Lease older = leases.first().get(0).lease();
    Lease newer = leases.second().get(0).lease();
    Lease other = leases.second().get(1).lease();
    List<CommitOutcome> outcomes =
        queue.completeAll(
            List.of(
                new FencedQueue.Completion(older, "{}", List.of()),
                new FencedQueue.Completion(newer, "{}", List.of()),
                new FencedQueue.Completion(other, "{}", List.of())));
    assertThat(outcomes)
        .containsExactly(
            new FencedOutcome.Cancelled(older.key(), older.epoch(), "one of two"),
            new FencedOutcome.Cancelled(newer.key(), newer.epoch(), "one of two"),
            new FencedOutcome.Accepted(other.key(), other.epoch(), false));
    assertThat(queue.renewAll(List.of(older, newer), LONG))
        .containsExactly(
            new Renewal.Lost(
                older, new FencedOutcome.Cancelled(older.key(), older.epoch(), "one of two")),
            new Renewal.Lost(
                newer, new FencedOutcome.Cancelled(newer.key(), newer.epoch(), "one of two")));
    assertThat(queue.find(cancelledId).orElseThrow().state()).isEqualTo(JobState.FAILED);
  }
}
