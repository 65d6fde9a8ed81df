package dev.fencing.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.Epoch;
import dev.fencing.FencedQueue;
import dev.fencing.Job;
import dev.fencing.JobSnapshot;
import dev.fencing.JobState;
import dev.fencing.QueueDepth;
import dev.fencing.testkit.db.FencingDatabase;
import dev.fencing.testkit.db.TestSchema;
import dev.fencing.testkit.fault.FlakyProxy;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The claim committed but its acknowledgement was lost; the automatic retry claimed a second batch,
 * and the first one stayed leased to nobody for a whole lease, an attempt spent. The retry now
 * finds the first try's rows by the call's claim token and returns those. On both engines (on the
 * append-only engine this is the claim that makes the queue's window; {@link
 * AppendOnlyFreshClaimTest} loses the reply to its one-call claim of fresh jobs).
 */
@FencingDatabase
class LostAcknowledgementOfClaimTest {

  private FlakyProxy proxy;

  @BeforeEach
  void startProxy(TestSchema schema) {
    proxy = FlakyProxy.inFrontOf(schema.database());
  }

  @AfterEach
  void stopProxy() {
    proxy.close();
  }

  @ParameterizedTest
  @EnumSource(PostgresFencing.Engine.class)
  void theRetriedClaimReturnsExactlyTheJobsTheFirstTryClaimed(
      PostgresFencing.Engine engine, TestSchema schema) {
    FencedQueue queue =
        PostgresFencing.builder(proxy.database().dataSource())
            .schema(schema.name())
            .engine(engine)
            .transientRetries(3)
            .retryWait(Duration.ofMillis(10))
            .build()
            .queue();
    List<Long> ids = queue.enqueueAll("q", Collections.nCopies(5, "{}"));

    proxy.loseNextAcknowledgement(CommitTags.firstClaimOfAQueue(engine));
    List<Job> jobs = queue.claimBatch("q", "w1", Duration.ofMinutes(5), 3);

    assertThat(proxy.lostAcknowledgements()).isEqualTo(1);
    assertThat(jobs).extracting(Job::id).isEqualTo(ids.subList(0, 3));
    assertThat(jobs).allSatisfy(j -> assertThat(j.epoch()).isEqualTo(Epoch.FIRST));
    assertThat(jobs).allSatisfy(j -> assertThat(j.attempt()).isEqualTo(1));
    assertThat(queue.depth("q"))
        .as("nothing is leased to nobody: the caller's three run, the other two wait")
        .isEqualTo(new QueueDepth(2, 3, 0));
    for (long id : ids.subList(0, 3)) {
      JobSnapshot job = queue.find(id).orElseThrow();
      assertThat(job.state()).isEqualTo(JobState.RUNNING);
      assertThat(job.owner()).isEqualTo("w1");
      assertThat(job.epoch()).isEqualTo(Epoch.FIRST.value());
      assertThat(job.attempts()).isEqualTo(1);
    }
    for (long id : ids.subList(3, 5)) {
      assertThat(queue.find(id).orElseThrow().state()).isEqualTo(JobState.PENDING);
    }
    for (Job job : jobs) {
      assertThat(queue.complete(job.lease(), "{}").repeat()).isFalse();
    }
    assertThat(queue.claimBatch("q", "w1", Duration.ofMinutes(5), 3))
        .extracting(Job::id)
        .isEqualTo(ids.subList(3, 5));
  }
}
