package dev.fencing.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.CancelResult;
import dev.fencing.FencedOffException;
import dev.fencing.FencedOutcome;
import dev.fencing.FencedQueue;
import dev.fencing.FencedReceiver;
import dev.fencing.JobSnapshot;
import dev.fencing.JobState;
import dev.fencing.Lease;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.receiver.Receivers;
import dev.fencing.testkit.db.FencingDatabase;
import dev.fencing.testkit.db.TestSchema;
import dev.fencing.testkit.memory.InMemoryQueue;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * A job cancelled while its handler runs: the next heartbeat's renewal is refused as {@link
 * FencedOutcome.Cancelled}, the handler is interrupted, nothing is delivered or committed, and a
 * late commit of its lease is refused as cancelled too.
 */
@FencingDatabase
class CancelledJobTest {

  @Test
  void onTheInMemoryQueue() throws Exception {
    handlerIsInterruptedAtTheNextHeartbeatAndItsCommitIsRefused(InMemoryQueue.builder().build());
  }

  @Test
  void onPostgreSql(TestSchema schema) throws Exception {
    handlerIsInterruptedAtTheNextHeartbeatAndItsCommitIsRefused(
        PostgresFencing.builder(schema.pooledDataSource(6)).schema(schema.name()).build().queue());
  }

  private static void handlerIsInterruptedAtTheNextHeartbeatAndItsCommitIsRefused(FencedQueue queue)
      throws Exception {
    FencedReceiver receiver = Receivers.inMemory();
    long id = queue.enqueue("q", "{}");
    CountDownLatch running = new CountDownLatch(1);
    AtomicReference<Lease> held = new AtomicReference<>();
    AtomicBoolean interrupted = new AtomicBoolean();
    Outcomes outcomes = new Outcomes();
    try (QueueRuntime runtime =
        HeartbeatTest.runtime(queue, receiver, outcomes, Duration.ofSeconds(30))
            .heartbeatInterval(Duration.ofMillis(300))
            .handler(
                (job, cancellation) -> {
                  held.set(job.lease());
                  running.countDown();
                  try {
                    Thread.sleep(60_000);
                  } catch (InterruptedException e) {
                    interrupted.set(true);
                    throw e;
                  }
                  return "{\"late\": true}";
                })
            .start()) {
      assertThat(running.await(10, TimeUnit.SECONDS)).isTrue();
      CancelResult cancelled = queue.cancel(id, "operator");
      assertThat(cancelled).isInstanceOf(CancelResult.Cancelled.class);
      // one heartbeat interval is enough; the bound is generous for a loaded machine
      WorkOutcome.FencedOff off =
          outcomes.await(WorkOutcome.FencedOff.class, 1, Duration.ofSeconds(10)).getFirst();
      assertThat(off.stage()).isEqualTo(WorkOutcome.Stage.HEARTBEAT);
      assertThat(off.refusal())
          .isEqualTo(
              new FencedOutcome.Cancelled(Long.toString(id), held.get().epoch(), "operator"));
    }
    assertThat(interrupted).isTrue();
    assertThat(outcomes.all()).hasSize(1);
    assertThat(receiver.newest(Long.toString(id))).isEmpty();
    assertThatThrownBy(() -> queue.complete(held.get(), "{\"late\": true}"))
        .isInstanceOfSatisfying(
            FencedOffException.class,
            e -> assertThat(e.refusal()).isInstanceOf(FencedOutcome.Cancelled.class));
    JobSnapshot row = queue.find(id).orElseThrow();
    assertThat(row.state()).isEqualTo(JobState.FAILED);
    assertThat(row.lastError()).isEqualTo("cancelled: operator");
    assertThat(row.result()).isNull();
  }
}
