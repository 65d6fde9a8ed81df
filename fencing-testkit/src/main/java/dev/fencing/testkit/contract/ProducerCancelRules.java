package dev.fencing.testkit.contract;

import static dev.fencing.testkit.contract.QueueContractFixture.assertRefused;
import static dev.fencing.testkit.contract.QueueContractFixture.assertRefusedAs;
import static dev.fencing.testkit.contract.QueueContractFixture.cancelled;
import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.CancelResult;
import dev.fencing.Epoch;
import dev.fencing.FencedOutcome;
import dev.fencing.JobOptions;
import dev.fencing.JobSnapshot;
import dev.fencing.JobState;
import dev.fencing.Lease;
import dev.fencing.QueueDepth;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The cancel half of {@link JobProducerContract}, as the producer sees it: a cancelled job ends
 * failed and is never handed out, a running one's holder is refused as {@link
 * FencedOutcome.Cancelled}, a second cancel is a repeat that writes nothing, and an ended or
 * unknown job is left as it is.
 */
abstract class ProducerCancelRules extends ProducerKeyRules {

  @Test
  void aPendingJobCancelledEndsFailedAndIsNeverClaimed() {
    long waiting = producer.enqueue(queueName, "{}");
    long delayed = producer.enqueue(queueName, "{}", JobOptions.after(HOUR));
    CancelResult.Cancelled cancelled = cancelled(producer.cancel(waiting, "not needed"));
    assertThat(cancelled.jobId()).isEqualTo(waiting);
    assertThat(cancelled.was()).isEqualTo(JobState.PENDING);
    assertThat(cancelled.repeat()).isFalse();
    assertThat(cancelled(producer.cancel(delayed)).was()).isEqualTo(JobState.PENDING);
    JobSnapshot withReason = producer.find(waiting).orElseThrow();
    assertThat(withReason.state()).isEqualTo(JobState.FAILED);
    assertThat(withReason.lastError()).contains("cancelled").contains("not needed");
    JobSnapshot without = producer.find(delayed).orElseThrow();
    assertThat(without.state()).isEqualTo(JobState.FAILED);
    assertThat(without.lastError()).contains("cancelled");
    assertThat(queue.claimBatch(queueName, "w1", LONG, 10)).isEmpty();
    assertThat(queue.depth(queueName)).isEqualTo(new QueueDepth(0, 0, 2));
  }

  @Test
  void aRunningJobCancelledRefusesItsHoldersLaterWrites() {
    long id = producer.enqueue(queueName, "{}");
    Lease lease = claimNext().lease();
    CancelResult.Cancelled cancelled = cancelled(producer.cancel(id, "stop"));
    assertThat(cancelled)
        .isEqualTo(new CancelResult.Cancelled(id, JobState.RUNNING, cancelled.fence(), false));
    assertThat(cancelled.fence()).as("it fences the holder's epoch").isGreaterThan(lease.epoch());

    FencedOutcome.Cancelled refusal =
        new FencedOutcome.Cancelled(lease.key(), lease.epoch(), "stop");
    assertRefusedAs(() -> queue.complete(lease, "{}"), refusal);
    assertRefusedAs(() -> queue.renew(lease, LONG), refusal);
    assertRefusedAs(() -> queue.fail(lease, "late", Duration.ZERO), refusal);
    assertRefusedAs(() -> queue.release(lease), refusal);
    JobSnapshot row = producer.find(id).orElseThrow();
    assertThat(row.state()).isEqualTo(JobState.FAILED);
    assertThat(row.result()).isNull();
    assertThat(queue.claim(queueName, "w2", LONG)).isEmpty();
  }

  @Test
  void cancellingAgainIsARepeatThatWritesNothing() {
    long pending = producer.enqueue(queueName, "{}");
    CancelResult.Cancelled first = cancelled(producer.cancel(pending, "first"));
    JobSnapshot after = producer.find(pending).orElseThrow();
    assertThat(producer.cancel(pending, "second"))
        .isEqualTo(new CancelResult.Cancelled(pending, JobState.PENDING, first.fence(), true));
    assertThat(producer.cancel(pending))
        .isEqualTo(new CancelResult.Cancelled(pending, JobState.PENDING, first.fence(), true));
    assertThat(producer.find(pending).orElseThrow()).isEqualTo(after);

    long running = producer.enqueue(queueName, "{}");
    Lease lease = claimNext().lease();
    CancelResult.Cancelled stopped = cancelled(producer.cancel(running, "first"));
    assertThat(producer.cancel(running, "second"))
        .isEqualTo(new CancelResult.Cancelled(running, JobState.RUNNING, stopped.fence(), true));
    assertRefusedAs(
        () -> queue.complete(lease, "{}"),
        new FencedOutcome.Cancelled(lease.key(), lease.epoch(), "first"));
  }

  @Test
  void anEndedJobIsLeftAsItIs() {
    long completed = producer.enqueue(queueName, "{}");
    queue.complete(claimNext().lease(), "{\"r\": 1}");
    JobSnapshot done = producer.find(completed).orElseThrow();
    assertThat(producer.cancel(completed, "late"))
        .isEqualTo(new CancelResult.AlreadyEnded(completed, JobState.COMPLETED));
    assertThat(producer.find(completed).orElseThrow()).isEqualTo(done);

    long failed = producer.enqueue(queueName, "{}");
    while (producer.find(failed).orElseThrow().state() != JobState.FAILED) {
      queue.fail(claimNext().lease(), "boom", Duration.ZERO);
    }
    JobSnapshot gaveUp = producer.find(failed).orElseThrow();
    assertThat(producer.cancel(failed))
        .isEqualTo(new CancelResult.AlreadyEnded(failed, JobState.FAILED));
    assertThat(producer.find(failed).orElseThrow()).isEqualTo(gaveUp);
  }

  @Test
  void aLongReasonIsCutTo4000Characters() {
    long id = producer.enqueue(queueName, "{}");
    cancelled(producer.cancel(id, "x".repeat(4_000) + "y".repeat(100)));
    assertThat(producer.find(id).orElseThrow().lastError())
        .contains("x".repeat(3_900))
        .doesNotContain("y");
  }

  @Test
  void anUnknownJobIsNotFoundAndBadArgumentsAreRefused() {
    long id = producer.enqueue(queueName, "{}");
    assertThat(producer.cancel(id + 1_000_000, "x"))
        .isEqualTo(new CancelResult.NotFound(id + 1_000_000));
    assertRefused(() -> producer.cancel(0, "x"), "jobId", "0");
    assertRefused(() -> producer.cancel(-3), "jobId", "-3");
    assertRefused(() -> producer.cancel(id, " "), "reason", "' '");
    JobSnapshot row = producer.find(id).orElseThrow();
    assertThat(row.state()).isEqualTo(JobState.PENDING);
    assertThat(row.lastError()).isNull();
    assertThat(claimNext().epoch()).isEqualTo(Epoch.FIRST);
  }
}
