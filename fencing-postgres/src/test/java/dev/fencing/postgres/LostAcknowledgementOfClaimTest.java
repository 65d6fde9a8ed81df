package dev.fencing.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.Epoch;
import dev.fencing.FencedQueue;
import dev.fencing.Job;
import dev.fencing.testkit.db.FencingDatabase;
import dev.fencing.testkit.db.TestSchema;
import dev.fencing.testkit.fault.FlakyProxy;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The claim committed but its acknowledgement was lost; the automatic retry claimed a second batch,
 * and the first one stayed leased to nobody for a whole lease, an attempt spent. The retry now
 * finds the first try's rows by the call's claim token and returns those.
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

  @Test
  void theRetriedClaimReturnsExactlyTheJobsTheFirstTryClaimed(TestSchema schema) {
    FencedQueue queue =
        PostgresFencing.builder(proxy.database().dataSource())
            .schema(schema.name())
            .transientRetries(3)
            .retryWait(Duration.ofMillis(10))
            .build()
            .queue();
    List<Long> ids = queue.enqueueAll("q", Collections.nCopies(5, "{}"));

    proxy.loseNextAcknowledgement("UPDATE");
    List<Job> jobs = queue.claimBatch("q", "w1", Duration.ofMinutes(5), 3);

    assertThat(proxy.lostAcknowledgements()).isEqualTo(1);
    assertThat(jobs).extracting(Job::id).isEqualTo(ids.subList(0, 3));
    assertThat(jobs).allSatisfy(j -> assertThat(j.epoch()).isEqualTo(Epoch.FIRST));
    assertThat(jobs).allSatisfy(j -> assertThat(j.attempt()).isEqualTo(1));
    List<Map<String, Object>> running =
        Rows.select(
            schema.dataSource(),
            schema.name(),
            "select id, owner, attempts, epoch from fencing_job where status = 'running'"
                + " order by id");
    assertThat(running)
        .as("nothing is leased to nobody: every running row is one the caller holds")
        .extracting(r -> r.get("id"))
        .isEqualTo(ids.subList(0, 3));
    assertThat(running).allSatisfy(r -> assertThat(r.get("attempts")).isEqualTo(1));
    for (Job job : jobs) {
      assertThat(queue.complete(job.lease(), "{}").repeat()).isFalse();
    }
    assertThat(queue.claimBatch("q", "w1", Duration.ofMinutes(5), 3))
        .extracting(Job::id)
        .isEqualTo(ids.subList(3, 5));
  }
}
