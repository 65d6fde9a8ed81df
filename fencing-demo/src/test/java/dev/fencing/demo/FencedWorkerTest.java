package dev.fencing.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.Epoch;
import dev.fencing.FencedOutcome;
import dev.fencing.FencedQueue;
import dev.fencing.FencedReceiver;
import dev.fencing.FencedWorker;
import dev.fencing.Job;
import dev.fencing.JobSnapshot;
import dev.fencing.JobState;
import dev.fencing.WorkOutcome;
import dev.fencing.receiver.Receivers;
import dev.fencing.testkit.FencingDatabase;
import dev.fencing.testkit.TestSchema;
import java.time.Duration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The worker flow: claim, call the receiver with job id and epoch, then commit. */
@FencingDatabase
class FencedWorkerTest {

  private FencedQueue queue;
  private FencedReceiver receiver;
  private FencedWorker worker;

  @BeforeEach
  void setUp(TestSchema schema) {
    queue = new PostgresBackend().queue(schema.dataSource(), schema.name());
    receiver = Receivers.inMemory();
    worker =
        FencedWorker.builder(queue, receiver)
            .queue("q")
            .owner("w1")
            .leaseLength(Duration.ofMinutes(1))
            .retryDelay(Duration.ZERO)
            .build();
  }

  @Test
  void idleWhenNothingIsDue() {
    assertThat(worker.runOnce(job -> "{}")).isInstanceOf(WorkOutcome.Idle.class);
  }

  @Test
  void deliversThenCommitsTheHandlersResult() {
    long id = queue.enqueue("q", "{\"n\": 2}");
    WorkOutcome outcome = worker.runOnce(job -> "{\"square\": 4}");
    assertThat(outcome).isInstanceOf(WorkOutcome.Completed.class);
    assertThat(receiver.newest(Long.toString(id)).orElseThrow())
        .isEqualTo(new FencedReceiver.Receipt(Long.toString(id), Epoch.FIRST, "{\"square\": 4}"));
    assertThat(queue.find(id).orElseThrow().result()).isEqualTo("{\"square\": 4}");
  }

  @Test
  void aHandlerThatThrowsFailsTheJobForARetry() {
    long id = queue.enqueue("q", "{}");
    WorkOutcome outcome =
        worker.runOnce(
            job -> {
              throw new IllegalStateException("downstream said no");
            });
    assertThat(outcome).isInstanceOf(WorkOutcome.Failed.class);
    JobSnapshot row = queue.find(id).orElseThrow();
    assertThat(row.state()).isEqualTo(JobState.PENDING);
    assertThat(row.lastError()).contains("downstream said no");
    assertThat(receiver.newest(Long.toString(id))).isEmpty();
  }

  @Test
  void aReceiverThatAlreadySawANewerEpochStopsTheCommit() {
    long id = queue.enqueue("q", "{}");
    Job job = queue.claim("q", "w1", Duration.ofMinutes(1)).orElseThrow();
    receiver.deliver(Long.toString(id), Epoch.of(7), "{\"by\": \"newer\"}");

    WorkOutcome outcome = worker.run(job, j -> "{\"by\": \"me\"}");

    assertThat(outcome)
        .isInstanceOfSatisfying(
            WorkOutcome.FencedOff.class,
            f -> {
              assertThat(f.stage()).isEqualTo(WorkOutcome.Stage.DELIVER);
              assertThat(f.refusal())
                  .isEqualTo(
                      new FencedOutcome.Superseded(
                          Long.toString(id), Epoch.FIRST, Epoch.of(7), null));
            });
    assertThat(queue.find(id).orElseThrow().result()).isNull();
  }

  @Test
  void aResultThatIsNotJsonFailsTheJob() {
    long id = queue.enqueue("q", "{}");
    assertThat(worker.runOnce(job -> "not json")).isInstanceOf(WorkOutcome.Failed.class);
    assertThat(queue.find(id).orElseThrow().lastError()).contains("result must be valid JSON");
  }

  @Test
  void settingsAreCheckedByName() {
    assertThatThrownBy(() -> FencedWorker.builder(queue, receiver).owner("w").build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("queue")
        .hasMessageContaining("null");
    assertThatThrownBy(
            () ->
                FencedWorker.builder(queue, receiver)
                    .queue("q")
                    .owner("w")
                    .leaseLength(Duration.ofDays(2))
                    .build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("leaseLength")
        .hasMessageContaining("PT48H");
  }
}
