package dev.fencing.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.FencedQueue;
import dev.fencing.JobSnapshot;
import dev.fencing.JobState;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.receiver.Receivers;
import dev.fencing.testkit.db.FencingDatabase;
import dev.fencing.testkit.db.TestSchema;
import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** Handler failures are recorded for a retry; two runtimes sharing one owner name stay exact. */
@FencingDatabase
class FailuresTest {

  @Test
  void anExceptionOrAnErrorFromTheHandlerFailsTheJobForARetry(TestSchema schema) throws Exception {
    FencedQueue queue = queue(schema);
    long checked = queue.enqueue("q", "{\"kind\": \"exception\"}");
    long error = queue.enqueue("q", "{\"kind\": \"error\"}");
    long nothing = queue.enqueue("q", "{\"kind\": \"null\"}");
    Outcomes outcomes = new Outcomes();
    try (QueueRuntime runtime =
        QueueRuntime.builder(queue, Receivers.inMemory())
            .queue("q")
            .owner("w1")
            .retryDelay(Duration.ofHours(1))
            .onOutcome(outcomes)
            .handler(
                (job, cancellation) -> {
                  if (job.payload().contains("exception")) {
                    throw new java.io.IOException("downstream said no");
                  }
                  if (job.payload().contains("error")) {
                    throw new StackOverflowError("deep");
                  }
                  return null;
                })
            .start()) {
      outcomes.await(WorkOutcome.Failed.class, 3, Duration.ofSeconds(10));
    }
    assertThat(outcomes.all()).hasSize(3);
    assertThat(row(queue, checked).lastError()).contains("downstream said no");
    assertThat(row(queue, error).lastError()).contains("StackOverflowError");
    assertThat(row(queue, nothing).lastError())
        .contains("the handler must return a result, but returned null");
    for (long id : List.of(checked, error, nothing)) {
      assertThat(row(queue, id).state()).isEqualTo(JobState.PENDING);
    }
  }

  @Test
  void twoRuntimesWithTheSameOwnerNameFinishEveryJobOnce(TestSchema schema) throws Exception {
    FencedQueue queue = queue(schema);
    List<Long> ids = queue.enqueueAll("q", IntStream.range(0, 400).mapToObj(i -> "{}").toList());
    Outcomes outcomes = new Outcomes();
    try (QueueRuntime first = sameOwner(queue, outcomes);
        QueueRuntime second = sameOwner(queue, outcomes)) {
      outcomes.await(WorkOutcome.Completed.class, 400, Duration.ofSeconds(30));
    }
    assertThat(outcomes.all()).hasSize(400).allMatch(WorkOutcome.Completed.class::isInstance);
    assertThat(outcomes.all().stream().map(o -> o.job().id()).distinct()).hasSize(400);
    for (long id : ids) {
      assertThat(row(queue, id).epoch()).isEqualTo(1);
    }
  }

  private static QueueRuntime sameOwner(FencedQueue queue, Outcomes outcomes) {
    return QueueRuntime.builder(queue, Receivers.inMemory())
        .queue("q")
        .owner("restarted-worker")
        .batchSize(10)
        .onOutcome(outcomes)
        .handler((job, cancellation) -> "{\"by\": \"" + job.id() + "\"}")
        .start();
  }

  private static JobSnapshot row(FencedQueue queue, long id) {
    return queue.find(id).orElseThrow();
  }

  private static FencedQueue queue(TestSchema schema) {
    return PostgresFencing.builder(schema.pooledDataSource(8))
        .schema(schema.name())
        .build()
        .queue();
  }
}
