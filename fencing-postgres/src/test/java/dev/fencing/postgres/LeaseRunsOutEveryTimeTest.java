package dev.fencing.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.FencedQueue;
import dev.fencing.Job;
import dev.fencing.JobSnapshot;
import dev.fencing.JobState;
import dev.fencing.postgres.admin.JobDetails;
import dev.fencing.testkit.db.FencingDatabase;
import dev.fencing.testkit.db.TestSchema;
import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A job that kills its worker every time was reclaimed forever: a reclaim after expiry never looked
 * at max_attempts, and attempts grew past it. Now a lease that runs out after the last attempt ends
 * the job failed, with the count in last_error, and nothing is deleted. On both engines.
 */
@FencingDatabase
class LeaseRunsOutEveryTimeTest {

  @ParameterizedTest
  @EnumSource(PostgresFencing.Engine.class)
  void aJobWhoseLeaseRunsOutOnEveryAttemptEndsFailedAfterMaxAttempts(
      PostgresFencing.Engine engine, TestSchema schema) throws Exception {
    PostgresFencing fencing = fencing(engine, schema, 3);
    FencedQueue queue = fencing.queue();
    long id = queue.enqueue("q", "{\"kills\": \"its worker\"}");
    for (int attempt = 1; attempt <= 3; attempt++) {
      Job job = queue.claim("q", "w" + attempt, Duration.ofMillis(150)).orElseThrow();
      assertThat(job.attempt()).isEqualTo(attempt);
      Thread.sleep(300);
    }

    assertThat(queue.claim("q", "w4", Duration.ofMinutes(1))).isEmpty();

    JobSnapshot row = queue.find(id).orElseThrow();
    assertThat(row.state()).isEqualTo(JobState.FAILED);
    assertThat(row.epoch()).isEqualTo(3);
    assertThat(row.attempts()).isEqualTo(3);
    assertThat(row.owner()).isEqualTo("w3");
    assertThat(row.leaseExpiresAt()).isNull();
    assertThat(row.lastError()).isEqualTo("lease ran out 3 times; 3 of 3 attempts used");
    JobDetails details = fencing.admin().job(id).orElseThrow();
    assertThat(details.expiries()).isEqualTo(3);
    assertThat(details.finishedAt()).isNotNull();
    assertThat(details.lastEvent()).isEqualTo("failed");
    assertThat(queue.claim("q", "w5", Duration.ofMinutes(1))).isEmpty();
  }

  @ParameterizedTest
  @EnumSource(PostgresFencing.Engine.class)
  void aSpentLeaseTakesNoPlaceInTheBatchAndOnlyClaimedJobsAreReturned(
      PostgresFencing.Engine engine, TestSchema schema) throws Exception {
    FencedQueue queue = fencing(engine, schema, 1).queue();
    long spent = queue.enqueue("q", "{}");
    queue.claim("q", "dies", Duration.ofMillis(100)).orElseThrow();
    Thread.sleep(250);
    long pending = queue.enqueue("q", "{}");

    assertThat(queue.claimBatch("q", "w", Duration.ofMinutes(1), 1))
        .extracting(Job::id)
        .containsExactly(pending);
    assertThat(queue.find(spent).orElseThrow().lastError())
        .isEqualTo("lease ran out once; 1 of 1 attempts used");
  }

  private static PostgresFencing fencing(
      PostgresFencing.Engine engine, TestSchema schema, int maxAttempts) {
    return PostgresFencing.builder(schema.dataSource())
        .schema(schema.name())
        .engine(engine)
        .maxAttempts(maxAttempts)
        .build();
  }
}
