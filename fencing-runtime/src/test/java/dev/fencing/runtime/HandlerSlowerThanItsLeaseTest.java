package dev.fencing.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.FencedQueue;
import dev.fencing.FencedReceiver;
import dev.fencing.JobState;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.receiver.Receivers;
import dev.fencing.testkit.db.FencingDatabase;
import dev.fencing.testkit.db.TestSchema;
import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * Heartbeats: handlers that run longer than the lease still finish, at their first epoch. Without
 * renewals (the pool before the runtime), 0 of 20 such jobs completed in 30 s: every commit came
 * after the lease ran out and the job had been claimed again.
 */
@FencingDatabase
class HandlerSlowerThanItsLeaseTest {

  /**
   * Short, so that handlers outlast it, but not so short that a heartbeat delayed by a busy machine
   * (2 cores, other test JVMs beside this one) lets it run out: 300 ms did, now and then.
   */
  private static final Duration LEASE = Duration.ofMillis(600);

  @Test
  void everyJobCompletesAtItsFirstEpochWhenHeartbeatsRenewTheLease(TestSchema schema)
      throws Exception {
    FencedQueue queue =
        PostgresFencing.builder(schema.pooledDataSource(8)).schema(schema.name()).build().queue();
    FencedReceiver receiver =
        PostgresFencing.builder(schema.pooledDataSource(4))
            .schema(schema.name())
            .build()
            .receiver("default");
    List<Long> ids = queue.enqueueAll("slow", IntStream.range(0, 20).mapToObj(i -> "{}").toList());
    Outcomes outcomes = new Outcomes();
    QueueStats stats;
    try (QueueRuntime runtime =
        QueueRuntime.builder(queue, receiver)
            .queue("slow")
            .owner("w1")
            .concurrency(10)
            .leaseLength(LEASE)
            .handler(
                (job, cancellation) -> {
                  Thread.sleep(LEASE.toMillis() * 8 / 3);
                  return "{\"done\": true}";
                })
            .onOutcome(outcomes)
            .start()) {
      outcomes.await(WorkOutcome.Completed.class, 20, Duration.ofSeconds(30));
      stats = runtime.stats();
    }
    assertThat(outcomes.all()).hasSize(20).allMatch(WorkOutcome.Completed.class::isInstance);
    for (long id : ids) {
      var row = queue.find(id).orElseThrow();
      assertThat(row.state()).isEqualTo(JobState.COMPLETED);
      assertThat(row.epoch()).as("job %s was never reclaimed", id).isEqualTo(1);
      assertThat(receiver.newest(Long.toString(id)).orElseThrow().epoch().value()).isEqualTo(1);
    }
    assertThat(stats.renewed()).isGreaterThan(20);
    // one renewal statement per heartbeat for every lease in flight, not one per lease
    assertThat(stats.renewStatements()).isLessThan(stats.renewed());
  }

  /**
   * The scene that starved 12-13 of 30 jobs before heartbeats (while others reached epoch 77-89):
   * handlers of 50-450 ms around a 300 ms lease, 4 threads, batches of 4; here twice as long on
   * both sides.
   */
  @Test
  void handlersAroundTheLeaseLengthStarveNoJob(TestSchema schema) throws Exception {
    FencedQueue queue =
        PostgresFencing.builder(schema.pooledDataSource(8)).schema(schema.name()).build().queue();
    List<Long> ids = queue.enqueueAll("mixed", IntStream.range(0, 30).mapToObj(i -> "{}").toList());
    Outcomes outcomes = new Outcomes();
    try (QueueRuntime runtime =
        QueueRuntime.builder(queue, Receivers.inMemory())
            .queue("mixed")
            .owner("w1")
            .concurrency(4)
            .batchSize(4)
            .leaseLength(LEASE)
            .handler(
                (job, cancellation) -> {
                  Thread.sleep(2 * (50 + (job.id() * 137) % 400));
                  return "{}";
                })
            .onOutcome(outcomes)
            .start()) {
      outcomes.await(WorkOutcome.Completed.class, 30, Duration.ofSeconds(30));
    }
    assertThat(outcomes.all()).hasSize(30).allMatch(WorkOutcome.Completed.class::isInstance);
    for (long id : ids) {
      assertThat(queue.find(id).orElseThrow().epoch()).isEqualTo(1);
    }
  }
}
