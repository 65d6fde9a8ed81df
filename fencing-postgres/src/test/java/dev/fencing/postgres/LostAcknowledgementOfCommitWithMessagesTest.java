package dev.fencing.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.Epoch;
import dev.fencing.FencedOutcome;
import dev.fencing.FencedQueue;
import dev.fencing.Job;
import dev.fencing.JobConsumer.Completion;
import dev.fencing.JobState;
import dev.fencing.OutboxMessage;
import dev.fencing.StoreUnavailableException;
import dev.fencing.testkit.db.FencingDatabase;
import dev.fencing.testkit.db.TestSchema;
import dev.fencing.testkit.fault.FlakyProxy;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The transaction that commits a result with its outbox messages lands, and the acknowledgement of
 * its {@code COMMIT} is lost. The retry, automatic or by hand, is a repeat and writes no message
 * again: exactly one set of messages exists. On both engines (each commits with messages in a
 * transaction of its own).
 */
@FencingDatabase
class LostAcknowledgementOfCommitWithMessagesTest {

  private static final List<OutboxMessage> MESSAGES =
      List.of(
          new OutboxMessage("mail", "user-1", "{\"n\": 1}"),
          new OutboxMessage("mail", "user-2", "{\"n\": 2}"));

  private FlakyProxy proxy;
  private TestSchema schema;

  @BeforeEach
  void startProxy(TestSchema schema) {
    this.schema = schema;
    proxy = FlakyProxy.inFrontOf(schema.database());
  }

  @AfterEach
  void stopProxy() {
    proxy.close();
  }

  @ParameterizedTest
  @EnumSource(PostgresFencing.Engine.class)
  void theAutomaticRetryIsARepeatAndWritesNoMessagesAgain(PostgresFencing.Engine engine) {
    FencedQueue queue = queueThroughProxy(engine, 3);
    long id = queue.enqueue("q", "{}");
    Job job = queue.claim("q", "w1", Duration.ofMinutes(5)).orElseThrow();

    proxy.loseNextAcknowledgement("COMMIT");
    FencedOutcome.Accepted outcome = queue.complete(job.lease(), "{\"done\": true}", MESSAGES);

    assertThat(proxy.lostAcknowledgements()).isEqualTo(1);
    assertThat(outcome).isEqualTo(new FencedOutcome.Accepted(Long.toString(id), Epoch.FIRST, true));
    assertThat(messageCount(id)).isEqualTo(2);
  }

  @ParameterizedTest
  @EnumSource(PostgresFencing.Engine.class)
  void aRetryByHandAfterTheErrorIsARepeatAndWritesNoMessagesAgain(PostgresFencing.Engine engine) {
    FencedQueue queue = queueThroughProxy(engine, 0);
    long id = queue.enqueue("q", "{}");
    Job job = queue.claim("q", "w1", Duration.ofMinutes(5)).orElseThrow();

    proxy.loseNextAcknowledgement("COMMIT");
    assertThatThrownBy(() -> queue.complete(job.lease(), "{\"done\": true}", MESSAGES))
        .isInstanceOf(StoreUnavailableException.class);
    assertThat(queue.find(id).orElseThrow().state()).isEqualTo(JobState.COMPLETED);
    assertThat(messageCount(id)).as("the messages landed with the commit").isEqualTo(2);

    assertThat(queue.complete(job.lease(), "{\"done\": true}", MESSAGES).repeat()).isTrue();
    assertThat(messageCount(id)).isEqualTo(2);
  }

  @ParameterizedTest
  @EnumSource(PostgresFencing.Engine.class)
  void aBatchRetriedAfterItsLostAcknowledgementWritesNoMessagesAgain(
      PostgresFencing.Engine engine) {
    FencedQueue queue = queueThroughProxy(engine, 3);
    long a = queue.enqueue("q", "{}");
    long b = queue.enqueue("q", "{}");
    List<Job> jobs = queue.claimBatch("q", "w1", Duration.ofMinutes(5), 2);

    proxy.loseNextAcknowledgement("COMMIT");
    var outcomes =
        queue.completeAll(
            List.of(
                new Completion(jobs.get(0).lease(), "{}", MESSAGES),
                new Completion(jobs.get(1).lease(), "{}", MESSAGES.subList(0, 1))));

    assertThat(proxy.lostAcknowledgements()).isEqualTo(1);
    assertThat(outcomes)
        .allSatisfy(o -> assertThat(o).isInstanceOf(FencedOutcome.Accepted.class))
        .allSatisfy(o -> assertThat(((FencedOutcome.Accepted) o).repeat()).isTrue());
    assertThat(
            messageCount(jobs.get(0).lease().jobId()) + messageCount(jobs.get(1).lease().jobId()))
        .isEqualTo(3);
    assertThat(List.of(a, b))
        .containsExactlyInAnyOrder(jobs.get(0).lease().jobId(), jobs.get(1).lease().jobId());
  }

  private long messageCount(long jobId) {
    return (long)
        Rows.select(
                schema.dataSource(),
                schema.name(),
                "select count(*) as n from fencing_outbox where job_id = ?",
                jobId)
            .getFirst()
            .get("n");
  }

  private FencedQueue queueThroughProxy(PostgresFencing.Engine engine, int transientRetries) {
    return PostgresFencing.builder(proxy.database().dataSource())
        .schema(schema.name())
        .engine(engine)
        .transientRetries(transientRetries)
        .retryWait(Duration.ofMillis(10))
        .build()
        .queue();
  }
}
