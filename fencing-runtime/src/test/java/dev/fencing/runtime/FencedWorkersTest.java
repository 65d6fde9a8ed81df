package dev.fencing.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.FencedReceiver;
import dev.fencing.OutboxMessage;
import dev.fencing.QueueDepth;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.schedule.FencedScheduler;
import dev.fencing.schedule.Schedule;
import dev.fencing.testkit.db.FencingDatabase;
import dev.fencing.testkit.db.TestSchema;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * The worker side's one door: five queues, two recurring schedules, the outbox relay and
 * maintenance in one process, started together and stopped by one drain that lets the handler still
 * running finish; and a producer-only process that runs maintenance and the relay with no queue.
 */
@FencingDatabase
class FencedWorkersTest {

  private static final List<String> QUEUES = List.of("emails", "pdf", "thumbs", "reports", "mail");

  @Test
  void fiveQueuesTwoSchedulesTheRelayAndMaintenanceRunThroughOneDoorAndStopWithOneDrain(
      TestSchema schema) throws Exception {
    PostgresFencing fencing =
        PostgresFencing.builder(schema.pooledDataSource(12)).schema(schema.name()).build();
    for (String queue : QUEUES) {
      fencing.queue().enqueueAll(queue, IntStream.range(0, 20).mapToObj(i -> "{}").toList());
    }
    Set<String> handled = ConcurrentHashMap.newKeySet();
    CountDownLatch slowStarted = new CountDownLatch(1);
    FencedReceiver mail = fencing.receiver("mail_sent");
    FencedScheduler scheduler =
        FencedScheduler.builder(fencing.schedules())
            .name("pod-1")
            .schedule(every("tick", "emails", Duration.ofMillis(200)))
            .schedule(every("tock", "reports", Duration.ofMillis(300)))
            .pollInterval(Duration.ofMillis(50))
            .build();
    FencedWorkers workers =
        FencedWorkers.builder(fencing.queue())
            .owner("pod-1")
            .queue("emails", (job, c) -> handled.add("emails " + job.id()) ? "{}" : "{}")
            .queue(
                "pdf",
                (job, c) -> handled.add("pdf " + job.id()) ? "{}" : "{}",
                q -> q.concurrency(2).leaseLength(Duration.ofMinutes(1)))
            .queue(
                "thumbs",
                (job, c) -> {
                  if (job.payload().contains("slow")) {
                    slowStarted.countDown();
                    Thread.sleep(1_000);
                  }
                  handled.add("thumbs " + job.id());
                  return "{}";
                })
            .queue("reports", (job, c) -> handled.add("reports " + job.id()) ? "{}" : "{}")
            .outboxQueue(
                "mail",
                (job, c) -> {
                  handled.add("mail " + job.id());
                  return HandlerResult.of(
                      "{}", new OutboxMessage("mail_sent", "to-" + job.id(), "{\"sent\": true}"));
                },
                q -> q.batchSize(10))
            .scheduler(scheduler)
            .relay(fencing.outbox(), "mail_sent", mail)
            .relayEvery(Duration.ofMillis(20))
            .maintenance(
                fencing.maintenance().keepFinished(Duration.ofDays(1)).build(),
                Duration.ofSeconds(1))
            .start();
    try {
      awaitTrue(() -> handled.size() >= 100, "the 100 jobs enqueued before start handled");
      awaitTrue(() -> scheduler.stats().enqueued() >= 4, "the schedules' slots enqueued");
      awaitTrue(() -> workers.relayStats().sent() >= 20, "the mail queue's messages relayed");
      awaitTrue(() -> workers.maintenanceStats().rounds() >= 1, "a maintenance round");
      assertThat(workers.queues()).containsExactlyElementsOf(QUEUES);
      assertThat(workers.healthy()).isTrue();
      assertThat(workers.health().values()).allMatch(h -> h.lastFailure().isEmpty());

      fencing.queue().enqueue("thumbs", "{\"kind\": \"slow\"}");
      assertThat(slowStarted.await(10, TimeUnit.SECONDS)).isTrue();
    } finally {
      // one drain for all of it: the slow handler, 1 s from its end, finishes and is committed
      assertThat(workers.shutdown(Duration.ofSeconds(10))).isTrue();
    }
    for (String queue : QUEUES) {
      QueueDepth depth = fencing.queue().depth(queue);
      assertThat(depth.running()).as(queue + " running after the drain").isZero();
    }
    assertThat(fencing.queue().depth("thumbs").pending()).isZero();
    assertThat(handled).hasSizeGreaterThanOrEqualTo(101);
    long mailed =
        handled.stream()
            .filter(h -> h.startsWith("mail "))
            .mapToLong(h -> Long.parseLong(h.substring(5)))
            .min()
            .orElseThrow();
    assertThat(mail.newest("to-" + mailed)).as("a mail job's message, relayed").isPresent();
    long enqueued = scheduler.stats().enqueued();
    Thread.sleep(400);
    assertThat(scheduler.stats().enqueued())
        .as("the scheduler stopped with the door")
        .isEqualTo(enqueued);
    assertThat(workers.shutdown(Duration.ZERO)).as("a second call reports the first").isTrue();
  }

  @Test
  void aProducerOnlyProcessRunsMaintenanceAndTheRelayWithoutAQueue(TestSchema schema)
      throws Exception {
    PostgresFencing fencing =
        PostgresFencing.builder(schema.pooledDataSource(4)).schema(schema.name()).build();
    try (FencedWorkers producer =
        FencedWorkers.builder(fencing.queue())
            .owner("producer-1")
            .relay(fencing.outbox(), "mail_sent", fencing.receiver("mail_sent"))
            .maintenance(fencing.maintenance().build(), Duration.ofSeconds(1))
            .start()) {
      assertThat(producer.queues()).isEmpty();
      awaitTrue(() -> producer.maintenanceStats().rounds() >= 1, "a maintenance round");
      awaitTrue(() -> producer.relayStats().rounds() >= 1, "a relay round");
    }
  }

  @Test
  void aBadSettingOfOneQueueIsNamedWithItsQueueAndNothingKeepsRunning(TestSchema schema) {
    PostgresFencing fencing =
        PostgresFencing.builder(schema.pooledDataSource(4)).schema(schema.name()).build();
    assertThatThrownBy(
            () ->
                FencedWorkers.builder(fencing.queue())
                    .owner("pod-1")
                    .queue("emails", (job, c) -> "{}")
                    .queue("pdf", (job, c) -> "{}", q -> q.concurrency(0))
                    .start())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("queue 'pdf': concurrency");
    assertThatThrownBy(
            () ->
                FencedWorkers.builder(fencing.queue())
                    .owner("pod-1")
                    .queue("emails", (job, c) -> "{}")
                    .queue("emails", (job, c) -> "{}"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'emails' was added twice");
    assertThat(Thread.getAllStackTraces().keySet())
        .noneMatch(t -> t.getName().startsWith("fencing-claimer-pod-1") && t.isAlive());
  }

  private static Schedule every(String name, String queue, Duration interval) {
    return Schedule.builder(name).queue(queue).every(interval).build();
  }

  private static void awaitTrue(java.util.function.BooleanSupplier condition, String what)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("not within 30 s: " + what);
      }
      Thread.sleep(20);
    }
  }
}
