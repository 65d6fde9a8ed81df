package dev.fencing.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.FencedQueue;
import dev.fencing.QueueLimits;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.receiver.Receivers;
import dev.fencing.testkit.db.FencingDatabase;
import dev.fencing.testkit.db.TestSchema;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * An idle runtime on a queue that signals waits for a wake-up instead of polling: an enqueue
 * reaches it long before its minute-long fallback poll, its stop stays prompt, and with
 * notifications off it polls every {@code idleWait} as before. Bounds are functional (10 s against
 * a minute).
 */
@FencingDatabase
class WakeUpsTest {

  private static final Duration MINUTE = Duration.ofMinutes(1);

  @Test
  void anIdleRuntimeWakesOnAnEnqueueLongBeforeItsFallbackPoll(TestSchema schema) throws Exception {
    FencedQueue queue = queue(schema, true);
    Outcomes outcomes = new Outcomes();
    try (QueueRuntime runtime = runtime(queue, outcomes)) {
      Thread.sleep(1_000); // claimed nothing, woke once when the listener began, waits its minute
      long id = queue.enqueue("q", "{}");

      var done = outcomes.await(WorkOutcome.Completed.class, 1, Duration.ofSeconds(10));
      assertThat(done.getFirst().job().id()).isEqualTo(id);
    }
  }

  @Test
  void anIdleRuntimeWaitingForAWakeUpStopsPromptly(TestSchema schema) throws Exception {
    FencedQueue queue = queue(schema, true);
    QueueRuntime runtime = runtime(queue, new Outcomes());
    Thread.sleep(1_000); // idle, waiting for a wake-up with a minute to go
    long started = System.nanoTime();
    runtime.close();
    assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(30));
  }

  @Test
  void withNotificationsOffTheRuntimePollsEveryIdleWait(TestSchema schema) throws Exception {
    FencedQueue queue = queue(schema, false);
    Outcomes outcomes = new Outcomes();
    try (QueueRuntime runtime = runtime(queue, outcomes)) {
      Thread.sleep(500);
      long id = queue.enqueue("q", "{}");

      var done = outcomes.await(WorkOutcome.Completed.class, 1, Duration.ofSeconds(10));
      assertThat(done.getFirst().job().id()).isEqualTo(id);
    }
  }

  @Test
  void aClaimALimitEmptiedIsTriedAgainWhenOneOfItsJobsEnds(TestSchema schema) throws Exception {
    FencedQueue queue = queue(schema, true);
    queue.setLimits("q", QueueLimits.maxRunning(1));
    queue.enqueueAll("q", List.of("{}", "{}", "{}", "{}"));
    Outcomes outcomes = new Outcomes();
    try (QueueRuntime runtime = runtime(queue, outcomes)) {
      // each claim after the first is emptied by the limit; an end of the runtime's own job, not
      // the minute's fallback poll, sends the next one (10 s against four minutes)
      var done = outcomes.await(WorkOutcome.Completed.class, 4, Duration.ofSeconds(10));
      assertThat(done).hasSize(4);
    }
  }

  private static QueueRuntime runtime(FencedQueue queue, Outcomes outcomes) {
    return QueueRuntime.builder(queue, Receivers.inMemory())
        .queue("q")
        .owner("w1")
        .fallbackPoll(MINUTE)
        .onOutcome(outcomes)
        .handler((job, cancellation) -> "{}")
        .start();
  }

  private static FencedQueue queue(TestSchema schema, boolean notifications) {
    return PostgresFencing.builder(schema.pooledDataSource(8))
        .schema(schema.name())
        .notifications(notifications)
        .build()
        .queue();
  }
}
