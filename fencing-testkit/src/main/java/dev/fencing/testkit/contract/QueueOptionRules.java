package dev.fencing.testkit.contract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.Enqueued;
import dev.fencing.Job;
import dev.fencing.JobOptions;
import dev.fencing.JobSnapshot;
import dev.fencing.JobState;
import dev.fencing.KeyedJob;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The job options half of {@link FencedQueueContract}: a job enqueued to run later is not handed
 * out before its time, and claimable jobs are handed out by priority, then ready time, then age,
 * also after a retry; options reach each job of a batch and of a keyed batch, and bad options are
 * refused by name.
 */
abstract class QueueOptionRules extends QueueLimitRules {

  private static final Instant LONG_AGO = Instant.parse("2000-01-01T00:00:00Z");

  @Test
  void aDelayedJobIsNotClaimedBeforeItsTime() {
    Instant before = Instant.now();
    long later = queue.enqueue(QUEUE, "{\"n\": 1}", JobOptions.after(Duration.ofHours(1)));
    assertThat(queue.claim(QUEUE, "w1", LONG)).isEmpty();
    JobSnapshot row = queue.find(later).orElseThrow();
    assertThat(row.state()).isEqualTo(JobState.PENDING);
    assertThat(row.owner()).isNull();
    assertThat(row.epoch()).isZero();
    assertThat(row.runAt()).isAfter(before.plus(Duration.ofMinutes(55)));
    assertThat(queue.depth(QUEUE).pending()).isEqualTo(1);
    Instant ahead = Instant.now().plus(Duration.ofMinutes(30));
    long ranked = queue.enqueue(QUEUE, "{\"n\": 3}", JobOptions.ofPriority(3).withRunAt(ahead));
    assertThat(queue.find(ranked).orElseThrow().runAt())
        .as("a job with a priority shows its own run time")
        .isEqualTo(ahead.truncatedTo(ChronoUnit.MICROS));
    assertThat(queue.depth(QUEUE).pending()).isEqualTo(2);

    long soon = queue.enqueue(QUEUE, "{\"n\": 2}", JobOptions.after(SHORT));
    Job claimed = awaitClaim("w1");
    assertThat(claimed.id()).isEqualTo(soon);
    assertThat(claimed.epoch().value()).isEqualTo(1);
    assertThat(claimed.attempt()).isEqualTo(1);
    assertThat(queue.claim(QUEUE, "w2", LONG)).as("the job an hour away").isEmpty();
  }

  @Test
  void runAtInThePastIsClaimableAtOnce() {
    long id = queue.enqueue(QUEUE, "{}", JobOptions.at(LONG_AGO));
    Job job = queue.claim(QUEUE, "w1", LONG).orElseThrow();
    assertThat(job.id()).isEqualTo(id);
    assertThat(queue.complete(job.lease(), "{}").repeat()).isFalse();
    assertThat(queue.find(id).orElseThrow().state()).isEqualTo(JobState.COMPLETED);
  }

  @Test
  void higherPriorityFirstThenRunTimeThenAge() {
    long plain = queue.enqueue(QUEUE, "{\"n\": 1}");
    long high = queue.enqueue(QUEUE, "{\"n\": 2}", JobOptions.ofPriority(5));
    long highLongReady =
        queue.enqueue(QUEUE, "{\"n\": 3}", JobOptions.ofPriority(5).withRunAt(LONG_AGO));
    long low = queue.enqueue(QUEUE, "{\"n\": 4}", JobOptions.ofPriority(-3).withRunAt(LONG_AGO));
    long highLater = queue.enqueue(QUEUE, "{\"n\": 5}", JobOptions.ofPriority(5));
    long plainLongReady = queue.enqueue(QUEUE, "{\"n\": 6}", JobOptions.at(LONG_AGO));

    assertThat(claimOneByOne(6))
        .containsExactly(highLongReady, high, highLater, plainLongReady, plain, low);
  }

  @Test
  void aClaimBatchTakesTheHighestPrioritiesFirst() {
    long plain = queue.enqueue(QUEUE, "{}");
    List<Long> high = queue.enqueueAll(QUEUE, List.of("{}", "{}"), JobOptions.ofPriority(1));
    List<Job> batch = queue.claimBatch(QUEUE, "w1", LONG, 2);
    assertThat(batch).extracting(Job::id).isEqualTo(high);
    assertThat(queue.claim(QUEUE, "w1", LONG).orElseThrow().id()).isEqualTo(plain);
  }

  @Test
  void batchAndKeyedEnqueueCarryOptionsPerJob() {
    List<Long> batch = queue.enqueueAll(QUEUE, List.of("{}", "{}"), JobOptions.ofPriority(2));
    List<Enqueued> keyed =
        queue.enqueueKeyed(
            QUEUE,
            List.of(
                new KeyedJob("plain", "{}"),
                new KeyedJob("urgent", "{}", JobOptions.ofPriority(7)),
                new KeyedJob("later", "{}", JobOptions.after(Duration.ofHours(1)))));
    assertThat(keyed).allMatch(Enqueued::created);
    Enqueued again = queue.enqueue(QUEUE, new KeyedJob("plain", "{}", JobOptions.ofPriority(9)));
    assertThat(again.created()).as("a key already taken keeps its job as it was").isFalse();
    assertThat(again.id()).isEqualTo(keyed.get(0).id());

    assertThat(claimOneByOne(4))
        .containsExactly(keyed.get(1).id(), batch.get(0), batch.get(1), keyed.get(0).id());
    assertThat(queue.claim(QUEUE, "w1", LONG)).as("the keyed job an hour away").isEmpty();
    assertThat(queue.find(keyed.get(2).id()).orElseThrow().state()).isEqualTo(JobState.PENDING);
  }

  @Test
  void aFailedJobKeepsItsPriorityOnRetry() {
    long plain = queue.enqueue(QUEUE, "{}");
    long high = queue.enqueue(QUEUE, "{}", JobOptions.ofPriority(4));
    Job first = queue.claim(QUEUE, "w1", LONG).orElseThrow();
    assertThat(first.id()).isEqualTo(high);

    queue.fail(first.lease(), "boom", Duration.ZERO);
    Job retry = queue.claim(QUEUE, "w1", LONG).orElseThrow();
    assertThat(retry.id()).as("the retry ranks above the older plain job").isEqualTo(high);
    assertThat(retry.attempt()).isEqualTo(2);

    queue.release(retry.lease());
    Job released = queue.claim(QUEUE, "w1", LONG).orElseThrow();
    assertThat(released.id()).as("a release keeps the priority too").isEqualTo(high);
    assertThat(released.epoch().value()).isEqualTo(3);

    queue.complete(released.lease(), "{}");
    assertThat(queue.claim(QUEUE, "w1", LONG).orElseThrow().id()).isEqualTo(plain);
  }

  @Test
  void aFailedJobWithAPriorityWaitsOutItsRetryDelay() {
    long high = queue.enqueue(QUEUE, "{}", JobOptions.ofPriority(4));
    Job first = queue.claim(QUEUE, "w1", LONG).orElseThrow();
    queue.fail(first.lease(), "boom", Duration.ofHours(1));
    assertThat(queue.claim(QUEUE, "w1", LONG)).isEmpty();
    JobSnapshot row = queue.find(high).orElseThrow();
    assertThat(row.state()).isEqualTo(JobState.PENDING);
    assertThat(row.runAt())
        .isAfter(Instant.now().plus(Duration.ofMinutes(55)))
        .isBefore(Instant.now().plus(Duration.ofMinutes(65)));
  }

  @Test
  void badOptionsAreRefusedNamingTheParameter() {
    assertRefused(() -> JobOptions.ofPriority(11), "priority", "11");
    assertRefused(() -> JobOptions.ofPriority(-11), "priority", "-11");
    assertRefused(() -> JobOptions.after(Duration.ofSeconds(-1)), "delay", "PT-1S");
    assertRefused(() -> JobOptions.after(JobOptions.MAX_DELAY.plusDays(1)), "delay", "PT87624H");
    assertRefused(
        () -> JobOptions.at(Instant.parse("1969-12-31T23:59:59Z")), "runAt", "1969-12-31");
    assertRefused(() -> queue.enqueue(QUEUE, "{}", null), "options", "null");
    assertRefused(() -> queue.enqueueAll(QUEUE, List.of("{}"), null), "options", "null");
    assertRefused(() -> new KeyedJob("k", "{}", null), "options", "null");
    assertRefused(
        () -> queue.enqueue("not a queue!", "{}", JobOptions.ofPriority(1)),
        "queue",
        "not a queue!");
    assertRefused(() -> queue.enqueue(QUEUE, null, JobOptions.ofPriority(1)), "payload", "null");
    assertThat(queue.depth(QUEUE).pending()).as("nothing written").isZero();
  }

  /** Claims {@code n} jobs one at a time and returns their ids in the order they came. */
  private List<Long> claimOneByOne(int n) {
    List<Long> ids = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      Optional<Job> job = queue.claim(QUEUE, "w1", LONG);
      assertThat(job).as("claim %d of %d", i + 1, n).isPresent();
      ids.add(job.orElseThrow().id());
    }
    return ids;
  }
}
