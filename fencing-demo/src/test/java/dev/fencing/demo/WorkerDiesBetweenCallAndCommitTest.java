package dev.fencing.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.Epoch;
import dev.fencing.FencedQueue;
import dev.fencing.FencedReceiver;
import dev.fencing.FencedWorker;
import dev.fencing.JobSnapshot;
import dev.fencing.JobState;
import dev.fencing.WorkOutcome;
import dev.fencing.testkit.FencingDatabase;
import dev.fencing.testkit.TestSchema;
import dev.fencing.testkit.WorkerProcess;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A worker calls the receiver and is killed (SIGKILL) before it commits. The next owner claims at a
 * higher epoch, delivers again (accepted: it supersedes the dead worker's call) and commits.
 */
@FencingDatabase
class WorkerDiesBetweenCallAndCommitTest {

  @Test
  void theNextOwnerDeliversAgainAtAHigherEpochAndCommits(TestSchema schema) {
    PostgresBackend backend = new PostgresBackend();
    FencedQueue queue = backend.queue(schema.dataSource(), schema.name());
    FencedReceiver receiver = backend.receiver(schema.dataSource(), schema.name());
    long id = queue.enqueue("mail", "{\"to\": \"a@example.com\"}");

    try (WorkerProcess doomed =
        WorkerProcess.start("doomed", PostgresBackend.class, schema.database(), schema.name())) {
      assertThat(doomed.call("claim mail doomed 500")).startsWith("ok claimed " + id + " 1 ");
      assertThat(doomed.call("deliver " + id + " {\"sent\": 1}")).startsWith("ok accepted 1");
      doomed.crash();
      assertThat(doomed.isAlive()).isFalse();
    }
    assertThat(receiver.newest(Long.toString(id)).orElseThrow().epoch()).isEqualTo(Epoch.FIRST);

    FencedWorker next =
        FencedWorker.builder(queue, receiver)
            .queue("mail")
            .owner("next")
            .leaseLength(Duration.ofMinutes(1))
            .build();
    WorkOutcome outcome = awaitWork(next);

    assertThat(outcome)
        .isInstanceOfSatisfying(
            WorkOutcome.Completed.class,
            c -> {
              assertThat(c.job().epoch()).isEqualTo(Epoch.of(2));
              assertThat(c.delivery().repeat()).isFalse();
            });
    FencedReceiver.Receipt receipt = receiver.newest(Long.toString(id)).orElseThrow();
    assertThat(receipt.epoch()).isEqualTo(Epoch.of(2));
    assertThat(receipt.payload()).isEqualTo("{\"sent\": 2}");
    JobSnapshot row = queue.find(id).orElseThrow();
    assertThat(row.state()).isEqualTo(JobState.COMPLETED);
    assertThat(row.epoch()).isEqualTo(2);
    assertThat(row.result()).isEqualTo("{\"sent\": 2}");
  }

  private static WorkOutcome awaitWork(FencedWorker worker) {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (System.nanoTime() < deadline) {
      WorkOutcome outcome = worker.runOnce(job -> "{\"sent\": " + job.epoch().value() + "}");
      if (!(outcome instanceof WorkOutcome.Idle)) {
        return outcome;
      }
      try {
        Thread.sleep(25);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError(e);
      }
    }
    throw new AssertionError("the dead worker's lease never expired");
  }
}
