package dev.fencing.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.CommitOutcome;
import dev.fencing.Epoch;
import dev.fencing.FencedOffException;
import dev.fencing.FencedOutcome;
import dev.fencing.FencedQueue;
import dev.fencing.Job;
import dev.fencing.JobConsumer.Completion;
import dev.fencing.JobState;
import dev.fencing.OutboxMessage;
import dev.fencing.testkit.db.FencingDatabase;
import dev.fencing.testkit.db.TestSchema;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Outbox messages are written in the transaction of the commit's compare-and-set, only if it
 * matched: a zombie's commit is refused and its messages never exist; the new owner's do.
 */
@FencingDatabase
class ZombieOutboxMessagesNeverExistTest {

  private static final Duration DYING = Duration.ofMillis(200);

  private DataSource ds;
  private String schema;
  private FencedQueue queue;

  @BeforeEach
  void setUp(TestSchema testSchema) {
    ds = testSchema.dataSource();
    schema = testSchema.name();
    queue = PostgresFencing.builder(ds).schema(schema).build().queue();
  }

  @Test
  void aZombiesMessagesAreNeverWrittenAndTheNewOwnersAre() throws InterruptedException {
    long id = queue.enqueue("q", "{}");
    Job zombie = queue.claim("q", "zombie", DYING).orElseThrow();
    Thread.sleep(DYING.toMillis() + 100);
    Job owner = queue.claim("q", "owner", Duration.ofMinutes(5)).orElseThrow();

    assertThatThrownBy(
            () ->
                queue.complete(
                    zombie.lease(), "{\"by\": \"zombie\"}", List.of(mail("zombie's email"))))
        .isInstanceOf(FencedOffException.class);
    assertThat(outbox(id)).as("the zombie's messages").isEmpty();

    queue.complete(
        owner.lease(), "{\"by\": \"owner\"}", List.of(mail("owner's email"), sms("owner's sms")));
    assertThat(outbox(id))
        .containsExactly(
            row(id, 0, 2, "mail", "user-7", "{\"text\": \"owner's email\"}"),
            row(id, 1, 2, "sms", "user-7", "{\"text\": \"owner's sms\"}"));

    assertThatThrownBy(
            () -> queue.complete(zombie.lease(), "{\"by\": \"zombie\"}", List.of(mail("late"))))
        .isInstanceOf(FencedOffException.class);
    assertThat(outbox(id)).hasSize(2);
  }

  @Test
  void theSameCommitAgainIsARepeatAndWritesNoMessagesAgain() {
    long id = queue.enqueue("q", "{}");
    Job job = queue.claim("q", "w", Duration.ofMinutes(5)).orElseThrow();
    queue.complete(job.lease(), "{}", List.of(mail("once")));
    assertThat(queue.complete(job.lease(), "{}", List.of(mail("once"))).repeat()).isTrue();
    assertThat(outbox(id)).hasSize(1);
  }

  @Test
  void completeAllWritesTheMessagesOfTheCommittedItemsOnly() throws InterruptedException {
    long a = queue.enqueue("q", "{}");
    Job zombieA = queue.claim("q", "zombie", DYING).orElseThrow();
    Thread.sleep(DYING.toMillis() + 100);
    Job ownerA = queue.claim("q", "owner", Duration.ofMinutes(5)).orElseThrow();
    long b = queue.enqueue("q", "{}");
    Job ownerB = queue.claim("q", "owner", Duration.ofMinutes(5)).orElseThrow();
    long c = queue.enqueue("q", "{}");
    Job ownerC = queue.claim("q", "owner", Duration.ofMinutes(5)).orElseThrow();

    List<CommitOutcome> outcomes =
        queue.completeAll(
            List.of(
                new Completion(zombieA.lease(), "{}", List.of(mail("zombie a"))),
                new Completion(ownerB.lease(), "{}", List.of(mail("b0"), sms("b1"))),
                new Completion(ownerC.lease(), "{}", List.of(mail("c"), badPayload())),
                new Completion(ownerA.lease(), "{}", List.of(sms("a")))));

    assertThat(outcomes.get(0)).isInstanceOf(FencedOutcome.Superseded.class);
    assertThat(outcomes.get(1)).isEqualTo(accepted(b, 1));
    assertThat(outcomes.get(2))
        .isInstanceOfSatisfying(
            CommitOutcome.Invalid.class,
            invalid ->
                assertThat(invalid.error())
                    .hasMessageStartingWith("completions[2].messages[1].payload must be JSON"));
    assertThat(outcomes.get(3)).isEqualTo(accepted(a, 2));
    assertThat(outbox(a)).containsExactly(row(a, 0, 2, "sms", "user-7", "{\"text\": \"a\"}"));
    assertThat(outbox(b)).extracting(r -> r.get("idx")).containsExactly(0, 1);
    assertThat(outbox(c)).as("the invalid item's messages").isEmpty();
    assertThat(queue.find(c).orElseThrow().state()).isEqualTo(JobState.RUNNING);

    assertThat(
            queue.completeAll(
                List.of(new Completion(ownerB.lease(), "{}", List.of(mail("b0"), sms("b1"))))))
        .containsExactly(new FencedOutcome.Accepted(Long.toString(b), Epoch.FIRST, true));
    assertThat(outbox(b)).as("a repeated batch writes no messages again").hasSize(2);
  }

  @Test
  void badInputIsRefusedNamingItAndNothingIsWritten() {
    long id = queue.enqueue("q", "{}");
    Job job = queue.claim("q", "w", Duration.ofMinutes(5)).orElseThrow();

    assertThatThrownBy(() -> new OutboxMessage(null, "k", "{}"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("destination must be a plain identifier");
    assertThatThrownBy(() -> new OutboxMessage("mail; drop table x", "k", "{}"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageEndingWith("but was 'mail; drop table x'");
    assertThatThrownBy(() -> new OutboxMessage("mail", "k".repeat(501), "{}"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("key must be");
    assertThatThrownBy(() -> new OutboxMessage("mail", "k", null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("payload must be JSON, but was null");
    assertThatThrownBy(() -> queue.complete(job.lease(), "{}", null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("messages must be a list, but was null");
    assertThatThrownBy(
            () -> queue.complete(job.lease(), "{}", Collections.nCopies(101, mail("spam"))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("messages must hold at most 100 messages, but held 101");
    List<OutboxMessage> withNull = new ArrayList<>(List.of(mail("x")));
    withNull.add(null);
    assertThatThrownBy(() -> queue.complete(job.lease(), "{}", withNull))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("messages[1] must not be null");
    assertThatThrownBy(() -> queue.complete(job.lease(), "{}", List.of(mail("fine"), badPayload())))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("messages[1].payload must be JSON");
    assertThatThrownBy(
            () ->
                queue.complete(
                    job.lease(), "{}", List.of(new OutboxMessage("mail", "k", "{\"a\": \"\0\"}"))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("messages[0].payload");
    assertThatThrownBy(() -> queue.complete(job.lease(), "{oops", List.of(mail("fine"))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("result must be JSON");

    assertThat(outbox(id)).isEmpty();
    assertThat(queue.find(id).orElseThrow().state())
        .as("the compare-and-set was rolled back with the messages")
        .isEqualTo(JobState.RUNNING);
    assertThat(queue.complete(job.lease(), "{}", Collections.nCopies(100, mail("ok"))).repeat())
        .isFalse();
    assertThat(outbox(id)).hasSize(100);
  }

  private static OutboxMessage mail(String text) {
    return new OutboxMessage("mail", "user-7", "{\"text\": \"" + text + "\"}");
  }

  private static OutboxMessage sms(String text) {
    return new OutboxMessage("sms", "user-7", "{\"text\": \"" + text + "\"}");
  }

  private static OutboxMessage badPayload() {
    return new OutboxMessage("mail", "user-7", "{not json");
  }

  private static FencedOutcome.Accepted accepted(long id, long epoch) {
    return new FencedOutcome.Accepted(Long.toString(id), Epoch.of(epoch), false);
  }

  private List<Map<String, Object>> outbox(long jobId) {
    return Rows.select(
        ds,
        schema,
        "select job_id, idx, epoch, destination, receiver_key, payload::text as payload"
            + " from fencing_outbox where job_id = ? order by idx",
        jobId);
  }

  private static Map<String, Object> row(
      long jobId, int idx, long epoch, String destination, String key, String payload) {
    return Map.of(
        "job_id", jobId,
        "idx", idx,
        "epoch", epoch,
        "destination", destination,
        "receiver_key", key,
        "payload", payload);
  }
}
