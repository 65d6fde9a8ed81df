package dev.fencing.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.fencing.FencedQueue;
import dev.fencing.Job;
import dev.fencing.Lease;
import dev.fencing.testkit.db.FencingDatabase;
import dev.fencing.testkit.db.TestSchema;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Lease lengths and retry delays land on the database clock as given, not scaled. */
@FencingDatabase
class DatabaseClockDurationsTest {

  private FencedQueue queue;

  @BeforeEach
  void build(TestSchema schema) {
    queue = PostgresFencing.builder(schema.dataSource()).schema(schema.name()).build().queue();
  }

  @Test
  void aClaimsLeaseRunsForItsLength() {
    queue.enqueue("q", "{}");
    Instant before = Instant.now();
    Job job = queue.claim("q", "w1", Duration.ofMinutes(10)).orElseThrow();
    assertThat(job.lease().expiresAt())
        .isCloseTo(before.plus(Duration.ofMinutes(10)), within(30, ChronoUnit.SECONDS));
  }

  @Test
  void aRenewalRunsForItsLengthSingleAndBatched() {
    queue.enqueueAll("q", List.of("{}", "{}"));
    List<Job> jobs = queue.claimBatch("q", "w1", Duration.ofSeconds(30), 2);
    Instant before = Instant.now();
    Lease renewed = queue.renew(jobs.get(0).lease(), Duration.ofMinutes(10));
    Lease batched =
        queue.renewAll(List.of(jobs.get(1).lease()), Duration.ofMinutes(20)).getFirst().lease();
    assertThat(renewed.expiresAt())
        .isCloseTo(before.plus(Duration.ofMinutes(10)), within(30, ChronoUnit.SECONDS));
    assertThat(batched.expiresAt())
        .isCloseTo(before.plus(Duration.ofMinutes(20)), within(30, ChronoUnit.SECONDS));
  }

  @Test
  void aFailedJobWaitsOutItsRetryDelayAndNoLonger() {
    long id = queue.enqueue("q", "{}");
    Job job = queue.claim("q", "w1", Duration.ofMinutes(5)).orElseThrow();
    Instant before = Instant.now();
    queue.fail(job.lease(), "later", Duration.ofHours(1));
    assertThat(queue.find(id).orElseThrow().runAt())
        .isCloseTo(before.plus(Duration.ofHours(1)), within(30, ChronoUnit.SECONDS));
  }
}
