package dev.fencing.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.FencedOffException;
import dev.fencing.FencedQueue;
import dev.fencing.Job;
import dev.fencing.JobState;
import dev.fencing.postgres.admin.AdminChange;
import dev.fencing.postgres.admin.JobDetails;
import dev.fencing.postgres.admin.PostgresAdmin;
import dev.fencing.postgres.admin.QueueSummary;
import dev.fencing.testkit.db.TestSchema;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The admin contract on the append-only engine, and what only it has: a job failed before any claim
 * took it is still in its queue's window, which must skip it, and hand it out once when it is
 * requeued.
 */
class AppendOnlyAdminTest extends PostgresAdminContract {

  private static final Duration LONG = Duration.ofMinutes(5);

  @Override
  PostgresFencing.Engine engine() {
    return PostgresFencing.Engine.APPEND_ONLY;
  }

  @Override
  void finishedDaysAgo(TestSchema schema, int days, long... ids) throws Exception {
    execute(
        schema,
        "update fencing_append_done set finished_at = now() - interval '"
            + days
            + " days' where job_id in ("
            + Arrays.stream(ids).mapToObj(Long::toString).collect(Collectors.joining(", "))
            + ")");
  }

  @Test
  void aFreshJobFailedBeforeAnyClaimIsSkippedByTheWindowAndHandedOutOnceWhenRequeued(
      TestSchema schema) {
    FencedQueue queue = queue(schema, 5);
    long before = queue.enqueue("q", "{}");
    long poisoned = queue.enqueue("q", "{}");
    long after = queue.enqueue("q", "{}");
    PostgresAdmin admin = admin(schema);

    JobDetails failed = ((AdminChange.Changed) admin.fail(poisoned, "poison pill")).job();
    assertThat(failed.job().state()).isEqualTo(JobState.FAILED);
    assertThat(failed.job().epoch()).isZero();
    assertThat(failed.lastEvent()).isEqualTo("admin_failed");
    assertThat(queue.depth("q").pending()).isEqualTo(2);
    assertThat(queue.depth("q").failed()).isEqualTo(1);

    List<Job> claimed = queue.claimBatch("q", "w", LONG, 10);
    assertThat(claimed).extracting(Job::id).containsExactly(before, after);
    assertThat(queue.claimBatch("q", "w", LONG, 10)).isEmpty();

    JobDetails requeued = ((AdminChange.Changed) admin.requeue(poisoned)).job();
    assertThat(requeued.job().state()).isEqualTo(JobState.PENDING);
    assertThat(requeued.lastEvent()).isEqualTo("requeued");
    assertThat(queue.depth("q").pending()).isEqualTo(1);
    List<Job> again = queue.claimBatch("q", "w", LONG, 10);
    assertThat(again).extracting(Job::id).containsExactly(poisoned);
    assertThat(again.getFirst().epoch().value()).isEqualTo(1);
    assertThat(queue.claimBatch("q", "w", LONG, 10)).isEmpty();
    assertThat(queue.complete(again.getFirst().lease(), "{}").isAccepted()).isTrue();
    assertThat(admin.job(poisoned).orElseThrow().job().state()).isEqualTo(JobState.COMPLETED);
  }

  @Test
  void aFreshJobFailedWhileAnotherIsClaimedStaysFailed(TestSchema schema) {
    FencedQueue queue = queue(schema, 5);
    long first = queue.enqueue("q", "{}");
    Job held = queue.claim("q", "w", LONG).orElseThrow();
    long second = queue.enqueue("q", "{}");
    PostgresAdmin admin = admin(schema);

    assertThat(admin.fail(second, "not wanted")).isInstanceOf(AdminChange.Changed.class);

    assertThat(held.id()).isEqualTo(first);
    assertThat(queue.claim("q", "w", LONG)).isEmpty();
    assertThat(admin.queues(false)).containsExactly(new QueueSummary("q", 0, 1, 1, null));
  }

  @Test
  void aReleasedJobFailedByTheOperatorIsNotHandedOutAgain(TestSchema schema) {
    FencedQueue queue = queue(schema, 5);
    long id = queue.enqueue("q", "{}");
    Job first = queue.claim("q", "w1", LONG).orElseThrow();
    queue.release(first.lease());
    PostgresAdmin admin = admin(schema);
    assertThat(admin.job(id).orElseThrow().lastEvent()).isEqualTo("released");
    assertThat(admin.job(id).orElseThrow().settledEpochs()).containsExactly(-1L);

    JobDetails failed = ((AdminChange.Changed) admin.fail(id, "stop")).job();

    assertThat(failed.job().state()).isEqualTo(JobState.FAILED);
    assertThat(failed.job().epoch()).isEqualTo(first.epoch().value());
    assertThat(queue.claim("q", "w2", LONG)).isEmpty();
    assertThat(queue.depth("q").pending()).isZero();
  }

  @Test
  void aLateWriteOfTheLeaseThatFailedAJobIsRefusedAfterItsRequeue(TestSchema schema) {
    FencedQueue queue = queue(schema, 1);
    long id = queue.enqueue("q", "{}");
    long other = queue.enqueue("q", "{}");
    List<Job> batch = queue.claimBatch("q", "w1", LONG, 2);
    Job failing = batch.getFirst().id() == id ? batch.getFirst() : batch.getLast();
    queue.fail(failing.lease(), "boom", Duration.ZERO);
    PostgresAdmin admin = admin(schema);

    assertThat(admin.requeue(id)).isInstanceOf(AdminChange.Changed.class);

    // the claim row is still live (the other job is open): the requeue gave the job back in it
    assertThatThrownBy(() -> queue.complete(failing.lease(), "{}"))
        .isInstanceOf(FencedOffException.class);
    assertThat(admin.job(id).orElseThrow().job().state()).isEqualTo(JobState.PENDING);
    assertThat(admin.job(other).orElseThrow().job().state()).isEqualTo(JobState.RUNNING);
    Job again = queue.claim("q", "w2", LONG).orElseThrow();
    assertThat(again.id()).isEqualTo(id);
    assertThat(again.epoch().value()).isGreaterThan(failing.epoch().value());
  }
}
