package dev.fencing.testkit.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.Epoch;
import dev.fencing.FencedOffException;
import dev.fencing.FencedOutbox;
import dev.fencing.FencedOutcome;
import dev.fencing.Job;
import dev.fencing.KeyedJob;
import dev.fencing.Maintenance;
import dev.fencing.OutboxMessage;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A commit's messages are written only if its compare-and-set matched, once, and relayed at least
 * once at the commit's epoch; retention removes old finished jobs with their delivered messages,
 * keeps a job that still owes one, and forgets the keys of those it removes.
 */
class InMemoryOutboxAndRetentionTest {

  private static final Duration LEASE = Duration.ofSeconds(30);

  private final ManualClock clock = ManualClock.at(Instant.parse("2030-01-01T00:00:00Z"));
  private final InMemoryQueue queue = InMemoryQueue.builder().clock(clock).build();
  private final List<FencedOutbox.Envelope> sent = new ArrayList<>();

  private final FencedOutbox.Sender accepting =
      envelope -> {
        sent.add(envelope);
        return new FencedOutcome.Accepted(envelope.key(), envelope.epoch(), false);
      };

  @Test
  void onlyTheCommitThatWonWritesItsMessagesAndARepeatWritesNoneAgain() {
    long id = queue.enqueue("q", "{}");
    Job zombie = queue.claim("q", "zombie", LEASE).orElseThrow();
    clock.advance(LEASE);
    Job healthy = queue.claim("q", "healthy", LEASE).orElseThrow();

    assertThatThrownBy(() -> queue.complete(zombie.lease(), "{}", List.of(mail("late"))))
        .isInstanceOf(FencedOffException.class);
    queue.complete(healthy.lease(), "{}", List.of(mail("a"), mail("b")));
    assertThat(queue.complete(healthy.lease(), "{}", List.of(mail("a"), mail("b"))).repeat())
        .isTrue();

    assertThat(queue.outbox().relay("mail", accepting, 10))
        .extracting(r -> r.envelope().idempotencyKey() + "@" + r.envelope().epoch().value())
        .containsExactly(id + ":0@2", id + ":1@2");
    assertThat(sent).extracting(FencedOutbox.Envelope::payload).containsOnly("{\"to\": \"ada\"}");
    assertThat(queue.outbox().relay("mail", accepting, 10)).as("each is sent once").isEmpty();
  }

  @Test
  void aCancelledJobsCommitWithMessagesIsRefusedAndWritesNone() {
    long id = queue.enqueue("q", "{}");
    Job job = queue.claim("q", "w1", LEASE).orElseThrow();
    queue.cancel(id, "stop");

    assertThatThrownBy(() -> queue.complete(job.lease(), "{}", List.of(mail("late"))))
        .isInstanceOfSatisfying(
            FencedOffException.class,
            e ->
                assertThat(e.refusal())
                    .isEqualTo(
                        new FencedOutcome.Cancelled(job.lease().key(), job.epoch(), "stop")));
    assertThat(queue.outbox().relay("mail", accepting, 10)).isEmpty();
  }

  @Test
  void aMessageWhoseSenderThrowsStaysUnsentAndEachDestinationGetsItsOwn() {
    long id = queue.enqueue("q", "{}");
    Job job = queue.claim("q", "w1", LEASE).orElseThrow();
    queue.complete(
        job.lease(),
        "{}",
        List.of(mail("a"), new OutboxMessage("ledger", "acc-1", "{\"debit\":1}"), mail("b")));

    assertThatThrownBy(
            () ->
                queue
                    .outbox()
                    .relay(
                        "mail",
                        e -> {
                          throw new IllegalStateException("the mail server is down");
                        },
                        10))
        .hasMessage("the mail server is down");
    assertThat(queue.outbox().relay("mail", accepting, 1)).hasSize(1);
    assertThat(queue.outbox().relay("mail", accepting, 10)).hasSize(1);
    assertThat(sent).extracting(FencedOutbox.Envelope::index).containsExactly(0, 2);
    assertThat(queue.outbox().relay("ledger", accepting, 10))
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.envelope().jobId()).isEqualTo(id);
              assertThat(r.envelope().epoch()).isEqualTo(Epoch.FIRST);
              assertThat(r.envelope().payload()).isEqualTo("{\"debit\": 1}");
            });
    assertThatThrownBy(() -> queue.outbox().relay("Mail", accepting, 1))
        .hasMessageContaining("destination");
    assertThatThrownBy(() -> queue.outbox().relay("mail", accepting, 0))
        .hasMessageContaining("max");
  }

  @Test
  void aMessageTheStoreWouldRefuseTakesItsCommitDownByName() {
    long id = queue.enqueue("q", "{}");
    Job job = queue.claim("q", "w1", LEASE).orElseThrow();
    assertThatThrownBy(
            () ->
                queue.complete(
                    job.lease(),
                    "{}",
                    List.of(mail("a"), new OutboxMessage("mail", "b", "not json"))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("messages[1].payload must be JSON");
    assertThat(queue.find(id).orElseThrow().result()).isNull();
    assertThat(queue.outbox().relay("mail", accepting, 10)).isEmpty();
  }

  @Test
  void retentionRemovesOldFinishedJobsInBatchesButNotOneThatOwesAMessage() {
    List<Long> ids = queue.enqueueAll("q", List.of("{}", "{}", "{}", "{}"));
    List<Job> jobs = queue.claimBatch("q", "w1", LEASE, 4);
    queue.complete(jobs.get(0).lease(), "{}");
    queue.complete(jobs.get(1).lease(), "{}", List.of(mail("sent")));
    queue.complete(jobs.get(2).lease(), "{}", List.of(mail("owed")));
    queue.outbox().relay("mail", accepting, 1);
    Maintenance retention = queue.maintenance(Duration.ofDays(7), 1);

    assertThat(retention.runRound()).as("nothing is old yet").isEqualTo(Maintenance.Report.NOTHING);
    clock.advance(Duration.ofDays(7).plusNanos(1_000));

    assertThat(retention.runUntilDone()).isEqualTo(new Maintenance.Report(2, 0, 1, false));
    assertThat(queue.find(ids.get(0))).isEmpty();
    assertThat(queue.find(ids.get(1))).isEmpty();
    assertThat(queue.find(ids.get(2))).as("it owes a message").isPresent();
    assertThat(queue.find(ids.get(3))).as("it runs").isPresent();
    assertThatThrownBy(() -> queue.complete(jobs.get(0).lease(), "{}"))
        .isInstanceOfSatisfying(
            FencedOffException.class,
            e ->
                assertThat(e.refusal())
                    .isEqualTo(new FencedOutcome.Removed(key(ids.get(0)), Epoch.FIRST)));
    assertThatThrownBy(() -> queue.maintenance(Duration.ofSeconds(59), 1))
        .hasMessageStartingWith("keepFinished must be between 1 min");
  }

  @Test
  void aRemovedJobsKeyNamesANewJob() {
    long first = queue.enqueue("q", new KeyedJob("k", "{}")).id();
    queue.complete(queue.claim("q", "w1", LEASE).orElseThrow().lease(), "{}");
    clock.advance(Duration.ofMinutes(2));
    queue.maintenance(Duration.ofMinutes(1), 100).runRound();

    assertThat(queue.enqueue("q", new KeyedJob("k", "{}")).id()).isGreaterThan(first);
  }

  private static OutboxMessage mail(String key) {
    return new OutboxMessage("mail", key, "{\"to\":\"ada\"}");
  }

  private static String key(long id) {
    return Long.toString(id);
  }
}
