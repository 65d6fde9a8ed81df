package dev.fencing.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.Epoch;
import dev.fencing.FencedOffException;
import dev.fencing.FencedOutcome;
import dev.fencing.FencedQueue;
import dev.fencing.Job;
import dev.fencing.JobState;
import dev.fencing.Lease;
import dev.fencing.testkit.db.FencingDatabase;
import dev.fencing.testkit.db.TestSchema;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Each reason a compare-and-set can miss is reported as its own kind, with what won. */
@FencingDatabase
class RefusalKindsTest {

  private static final Duration LONG = Duration.ofMinutes(5);

  private FencedQueue queue;

  @BeforeEach
  void build(TestSchema schema) {
    queue = PostgresFencing.builder(schema.dataSource()).schema(schema.name()).build().queue();
  }

  @Test
  void aLeaseOnAJobNeverClaimedIsNotTheOwnerAndNamesNoEpochOrOwner() {
    long id = queue.enqueue("q", "{}");
    Lease forged = new Lease(id, "w1", Epoch.FIRST, Instant.now());

    assertThat(refusalOf(() -> queue.complete(forged, "{}")))
        .isEqualTo(new FencedOutcome.NotOwner(Long.toString(id), Epoch.FIRST, "w1", null, null));
  }

  @Test
  void aLeaseNamingALaterEpochThanTheJobsIsNotTheOwner() {
    long id = queue.enqueue("q", "{}");
    Job job = queue.claim("q", "w1", LONG).orElseThrow();
    Lease ahead = new Lease(id, "w1", Epoch.of(5), job.lease().expiresAt());

    assertThat(refusalOf(() -> queue.complete(ahead, "{}")))
        .isEqualTo(
            new FencedOutcome.NotOwner(Long.toString(id), Epoch.of(5), "w1", Epoch.FIRST, "w1"));
  }

  @Test
  void aLeaseWithTheRightEpochButAnotherOwnerNamesTheRealOwner() {
    long id = queue.enqueue("q", "{}");
    Job job = queue.claim("q", "w1", LONG).orElseThrow();
    Lease forged = new Lease(id, "intruder", Epoch.FIRST, job.lease().expiresAt());

    assertThat(refusalOf(() -> queue.renew(forged, LONG)))
        .isEqualTo(
            new FencedOutcome.NotOwner(
                Long.toString(id), Epoch.FIRST, "intruder", Epoch.FIRST, "w1"));
  }

  @Test
  void anOlderEpochIsSupersededByTheNewerOwner() {
    long id = queue.enqueue("q", "{}");
    Job first = queue.claim("q", "w1", LONG).orElseThrow();
    queue.release(first.lease());
    queue.claim("q", "w2", LONG).orElseThrow();

    assertThat(refusalOf(() -> queue.fail(first.lease(), "late", Duration.ZERO)))
        .isEqualTo(new FencedOutcome.Superseded(Long.toString(id), Epoch.FIRST, Epoch.of(2), "w2"));
  }

  @Test
  void aLeaseThatReleasedTheJobFindsItFinishedAsPending() {
    long id = queue.enqueue("q", "{}");
    Job job = queue.claim("q", "w1", LONG).orElseThrow();

    assertThat(queue.release(job.lease()))
        .isEqualTo(new FencedOutcome.Accepted(Long.toString(id), Epoch.FIRST, false));
    assertThat(queue.release(job.lease()))
        .as("a retried release")
        .isEqualTo(new FencedOutcome.Accepted(Long.toString(id), Epoch.FIRST, true));
    assertThat(refusalOf(() -> queue.complete(job.lease(), "{}")))
        .isEqualTo(
            new FencedOutcome.AlreadyFinished(Long.toString(id), Epoch.FIRST, JobState.PENDING));
  }

  @Test
  void aLeaseThatFailedTheJobCanRepeatTheSameFailButNotAnother() {
    long id = queue.enqueue("q", "{}");
    Job job = queue.claim("q", "w1", LONG).orElseThrow();

    assertThat(queue.fail(job.lease(), "boom", Duration.ZERO).repeat()).isFalse();
    assertThat(queue.fail(job.lease(), "boom", Duration.ZERO).repeat()).isTrue();
    assertThat(refusalOf(() -> queue.fail(job.lease(), "another", Duration.ZERO)))
        .isEqualTo(
            new FencedOutcome.AlreadyFinished(Long.toString(id), Epoch.FIRST, JobState.PENDING));
  }

  @Test
  void aBatchRepeatingACompleteWithAnotherResultFindsItAlreadyFinished() {
    long id = queue.enqueue("q", "{}");
    Job job = queue.claim("q", "w1", LONG).orElseThrow();
    queue.complete(job.lease(), "{\"r\": 1}");

    assertThat(
            queue.completeAll(
                java.util.List.of(new FencedQueue.Completion(job.lease(), "{\"r\": 2}"))))
        .containsExactly(
            new FencedOutcome.AlreadyFinished(Long.toString(id), Epoch.FIRST, JobState.COMPLETED));
  }

  @Test
  void anUnknownJobIsRefusedByNameInABatchToo() {
    Lease unknown = new Lease(987_654_321L, "w1", Epoch.FIRST, Instant.now());
    assertThatThrownBy(
            () -> queue.completeAll(java.util.List.of(new FencedQueue.Completion(unknown, "{}"))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("jobId must name an existing job, but was 987654321 (unknown)");
  }

  private static FencedOutcome.Refused refusalOf(Runnable write) {
    try {
      write.run();
    } catch (FencedOffException e) {
      return e.refusal();
    }
    throw new AssertionError("the write was not refused");
  }
}
