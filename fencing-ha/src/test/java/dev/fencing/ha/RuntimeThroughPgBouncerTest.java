package dev.fencing.ha;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.Epoch;
import dev.fencing.FencedQueue;
import dev.fencing.FencedReceiver;
import dev.fencing.JobState;
import dev.fencing.Maintenance;
import dev.fencing.OutboxMessage;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.postgres.admin.QueueSummary;
import dev.fencing.runtime.FencedWorkers;
import dev.fencing.runtime.HandlerResult;
import dev.fencing.runtime.QueueStats;
import dev.fencing.runtime.WorkOutcome;
import dev.fencing.testkit.db.FencingDatabase;
import dev.fencing.testkit.db.TestSchema;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;
import java.util.stream.IntStream;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * Two worker runtimes, their receiver and the outbox relay, every statement through PgBouncer in
 * transaction mode on fewer server connections than clients: every job is delivered, committed with
 * its message, and the message relayed, once each, with no store error.
 */
@FencingDatabase
class RuntimeThroughPgBouncerTest {

  private static final int JOBS = 40;
  private static final Duration WAIT = Duration.ofSeconds(30);

  @Test
  void workersReceiversAndTheRelayWorkThroughPgBouncer(TestSchema schema) throws Exception {
    DataSource throughBouncer = PgBouncerProcess.shared().pool(8);
    PostgresFencing fencing =
        PostgresFencing.builder(throughBouncer)
            .listenerDataSource(schema.dataSource())
            .schema(schema.name())
            .build();
    FencedQueue queue = fencing.queue();
    FencedReceiver ledger = fencing.receiver("ledger");
    FencedReceiver mail = fencing.receiver("mail");
    List<Long> ids = queue.enqueueAll("q", IntStream.range(0, JOBS).mapToObj(i -> "{}").toList());
    List<WorkOutcome> outcomes = new CopyOnWriteArrayList<>();
    QueueStats first;
    QueueStats second;
    try (FencedWorkers w1 =
            workers(queue, ledger, "w1", outcomes).relay(fencing.outbox(), "mail", mail).start();
        FencedWorkers w2 = workers(queue, ledger, "w2", outcomes).start()) {
      await(() -> outcomes.size() >= JOBS, "every job to end");
      await(() -> w1.relayStats().sent() >= JOBS, "every message to be relayed");
      first = w1.stats().get("q");
      second = w2.stats().get("q");
    }

    assertThat(outcomes).hasSize(JOBS).allMatch(o -> o instanceof WorkOutcome.Completed);
    assertThat(first.storeErrors() + second.storeErrors()).isZero();
    // maintenance (its VACUUM runs outside a transaction) and the admin go through it too
    assertThat(fencing.maintenance().build().runRound())
        .isEqualTo(new Maintenance.Report(0, 0, 0, false));
    assertThat(fencing.admin().queues(true))
        .containsExactly(new QueueSummary("q", 0, 0, 0, (long) JOBS));
    for (long id : ids) {
      assertThat(queue.find(id).orElseThrow().state()).isEqualTo(JobState.COMPLETED);
      assertThat(ledger.newest(Long.toString(id)).orElseThrow().epoch()).isEqualTo(Epoch.FIRST);
      assertThat(mail.newest("job-" + id).orElseThrow().payload())
          .isEqualTo("{\"job\": " + id + "}");
    }
  }

  private static FencedWorkers.Builder workers(
      FencedQueue queue, FencedReceiver ledger, String owner, List<WorkOutcome> outcomes) {
    return FencedWorkers.builder(queue)
        .receiver(ledger)
        .owner(owner)
        .relayEvery(Duration.ofMillis(20))
        .outboxQueue(
            "q",
            (job, cancellation) ->
                HandlerResult.of(
                    "{\"done\": true}",
                    new OutboxMessage("mail", "job-" + job.id(), "{\"job\": " + job.id() + "}")),
            q -> q.concurrency(4).maxCommitDelay(Duration.ofMillis(20)))
        .onOutcome(outcomes::add);
  }

  private static void await(BooleanSupplier condition, String what) throws InterruptedException {
    long end = System.nanoTime() + WAIT.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > end) {
        throw new AssertionError("no " + what + " within " + WAIT);
      }
      Thread.sleep(20);
    }
  }
}
