package dev.fencing.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.Epoch;
import dev.fencing.FencedOffException;
import dev.fencing.FencedOutcome;
import dev.fencing.FencedQueue;
import dev.fencing.Job;
import dev.fencing.JobState;
import dev.fencing.StoreUnavailableException;
import dev.fencing.testkit.db.FencingDatabase;
import dev.fencing.testkit.db.TestSchema;
import dev.fencing.testkit.fault.FlakyProxy;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A fail or release lands, its acknowledgement is lost, and the job (back to pending) is claimed
 * again before the worker retries. The retry must be told its write landed, not that it was fenced
 * off: the TLA+ model found this (spec/README.md). A lease that never gave its job back is still
 * refused. On both engines.
 */
@FencingDatabase
class FailRetriedAfterTheJobWasClaimedAgainTest {

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
  void aLandedFailRetriedAfterAReclaimIsARepeat(PostgresFencing.Engine engine) {
    FencedQueue queue = queue(engine);
    long id = queue.enqueue("q", "{}");
    Job first = queue.claim("q", "w1", Duration.ofMinutes(5)).orElseThrow();
    proxy.loseNextAcknowledgement(CommitTags.giveBack(engine));
    assertThatThrownBy(() -> queue.fail(first.lease(), "boom", Duration.ZERO))
        .isInstanceOf(StoreUnavailableException.class);
    Job second = queue.claim("q", "w2", Duration.ofMinutes(5)).orElseThrow();

    FencedOutcome.Accepted retried = queue.fail(first.lease(), "boom", Duration.ZERO);

    assertThat(retried).isEqualTo(new FencedOutcome.Accepted(Long.toString(id), Epoch.FIRST, true));
    assertThat(queue.find(id).orElseThrow().state()).isEqualTo(JobState.RUNNING);
    assertThat(queue.find(id).orElseThrow().owner()).isEqualTo("w2");
    assertThat(queue.complete(second.lease(), "{}").repeat()).isFalse();
  }

  @ParameterizedTest
  @EnumSource(PostgresFencing.Engine.class)
  void theSameOwnerReclaimingItsJobDoesNotHideItsLandedFail(PostgresFencing.Engine engine) {
    FencedQueue queue = queue(engine);
    long id = queue.enqueue("q", "{}");
    Job first = queue.claim("q", "w1", Duration.ofMinutes(5)).orElseThrow();
    proxy.loseNextAcknowledgement(CommitTags.giveBack(engine));
    assertThatThrownBy(() -> queue.fail(first.lease(), "boom", Duration.ZERO))
        .isInstanceOf(StoreUnavailableException.class);
    queue.claim("q", "w1", Duration.ofMinutes(5)).orElseThrow();

    assertThat(queue.fail(first.lease(), "boom", Duration.ZERO).repeat()).isTrue();
    assertThat(queue.find(id).orElseThrow().epoch()).isEqualTo(2);
  }

  @ParameterizedTest
  @EnumSource(PostgresFencing.Engine.class)
  void aLandedReleaseRetriedAfterAReclaimIsARepeatButNotAFail(PostgresFencing.Engine engine) {
    FencedQueue queue = queue(engine);
    queue.enqueue("q", "{}");
    Job first = queue.claim("q", "w1", Duration.ofMinutes(5)).orElseThrow();
    proxy.loseNextAcknowledgement(CommitTags.giveBack(engine));
    assertThatThrownBy(() -> queue.release(first.lease()))
        .isInstanceOf(StoreUnavailableException.class);
    queue.claim("q", "w2", Duration.ofMinutes(5)).orElseThrow();

    assertThat(queue.release(first.lease()).repeat()).isTrue();
    assertThatThrownBy(() -> queue.fail(first.lease(), "boom", Duration.ZERO))
        .isInstanceOf(FencedOffException.class)
        .extracting(e -> ((FencedOffException) e).refusal())
        .isInstanceOf(FencedOutcome.Superseded.class);
  }

  @ParameterizedTest
  @EnumSource(PostgresFencing.Engine.class)
  void aLeaseThatRanOutWithoutGivingItsJobBackIsStillRefused(PostgresFencing.Engine engine)
      throws InterruptedException {
    FencedQueue queue = queue(engine);
    queue.enqueue("q", "{}");
    Job first = queue.claim("q", "w1", Duration.ofMillis(200)).orElseThrow();
    Thread.sleep(300);
    queue.claim("q", "w2", Duration.ofMinutes(5)).orElseThrow();

    assertThatThrownBy(() -> queue.fail(first.lease(), "boom", Duration.ZERO))
        .isInstanceOf(FencedOffException.class)
        .extracting(e -> ((FencedOffException) e).refusal())
        .isInstanceOf(FencedOutcome.Superseded.class);
    assertThatThrownBy(() -> queue.release(first.lease())).isInstanceOf(FencedOffException.class);
  }

  private FencedQueue queue(PostgresFencing.Engine engine) {
    return PostgresFencing.builder(proxy.database().dataSource())
        .schema(schema.name())
        .engine(engine)
        .transientRetries(0)
        .build()
        .queue();
  }
}
