package dev.fencing.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.Epoch;
import dev.fencing.FencedOutcome;
import dev.fencing.FencedQueue;
import dev.fencing.Job;
import dev.fencing.JobState;
import dev.fencing.StoreUnavailableException;
import dev.fencing.testkit.db.FencingDatabase;
import dev.fencing.testkit.db.TestSchema;
import dev.fencing.testkit.fault.FlakyProxy;
import java.time.Duration;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The connection drops after the commit was sent and applied, so the worker never hears back. The
 * same worker retrying the same complete with the same lease must be told it succeeded. On both
 * engines.
 */
@FencingDatabase
class LostAcknowledgementOfCommitTest {

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
  void theAutomaticRetryOfALandedCommitIsAcceptedAsARepeat(PostgresFencing.Engine engine) {
    FencedQueue queue = queueThroughProxy(engine, 3);
    long id = queue.enqueue("q", "{}");
    Job job = queue.claim("q", "w1", Duration.ofMinutes(5)).orElseThrow();

    proxy.loseNextAcknowledgement(CommitTags.complete(engine));
    FencedOutcome.Accepted outcome = queue.complete(job.lease(), "{\"done\": true}");

    assertThat(proxy.lostAcknowledgements()).isEqualTo(1);
    assertThat(outcome).isEqualTo(new FencedOutcome.Accepted(Long.toString(id), Epoch.FIRST, true));
    assertThat(queue.find(id).orElseThrow().state()).isEqualTo(JobState.COMPLETED);
    assertThat(queue.find(id).orElseThrow().result()).isEqualTo("{\"done\": true}");
  }

  @ParameterizedTest
  @EnumSource(PostgresFencing.Engine.class)
  void aWorkerRetryingByHandAfterTheErrorGetsSuccessNotFencedOff(PostgresFencing.Engine engine) {
    FencedQueue queue = queueThroughProxy(engine, 0);
    long id = queue.enqueue("q", "{}");
    Job job = queue.claim("q", "w1", Duration.ofMinutes(5)).orElseThrow();

    proxy.loseNextAcknowledgement(CommitTags.complete(engine));
    assertThatThrownBy(() -> queue.complete(job.lease(), "{\"done\": true}"))
        .isInstanceOf(StoreUnavailableException.class);
    assertThat(queue.find(id).orElseThrow().state())
        .as("the commit landed although its acknowledgement was lost")
        .isEqualTo(JobState.COMPLETED);

    assertThat(queue.complete(job.lease(), "{\"done\": true}").repeat()).isTrue();
  }

  @ParameterizedTest
  @EnumSource(PostgresFencing.Engine.class)
  void aLostAcknowledgementOfFailIsAlsoARepeat(PostgresFencing.Engine engine) {
    FencedQueue queue = queueThroughProxy(engine, 3);
    long id = queue.enqueue("q", "{}");
    Job job = queue.claim("q", "w1", Duration.ofMinutes(5)).orElseThrow();

    proxy.loseNextAcknowledgement(CommitTags.giveBack(engine));
    assertThat(queue.fail(job.lease(), "boom", Duration.ZERO).repeat()).isTrue();
    assertThat(queue.find(id).orElseThrow().state()).isEqualTo(JobState.PENDING);
    assertThat(queue.find(id).orElseThrow().attempts()).isEqualTo(1);
  }

  private FencedQueue queueThroughProxy(PostgresFencing.Engine engine, int transientRetries) {
    DataSource ds = proxy.database().dataSource();
    return PostgresFencing.builder(ds)
        .schema(schema.name())
        .engine(engine)
        .transientRetries(transientRetries)
        .retryWait(Duration.ofMillis(10))
        .build()
        .queue();
  }
}
