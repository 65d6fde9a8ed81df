package dev.fencing.testkit.contract;

import static dev.fencing.testkit.contract.QueueContractFixture.assertRefused;
import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.Job;
import dev.fencing.JobOptions;
import dev.fencing.JobProducer;
import dev.fencing.JobSnapshot;
import dev.fencing.JobState;
import dev.fencing.KeyedJob;
import dev.fencing.testkit.db.FencingDatabase;
import dev.fencing.testkit.db.TestSchema;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Arrays;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * The promises of a {@link JobProducer}, as its javadoc and that of {@link JobOptions}, {@link
 * KeyedJob}, {@link dev.fencing.Enqueued} and {@link dev.fencing.CancelResult} make them. A
 * backend's test subclasses this once and says how to build its queue in a fresh schema ({@link
 * #queue(TestSchema)}, called once for the class; each test has a queue name of its own). The
 * producer under test is that queue in its producer's role unless the subclass hands another
 * ({@link #producer(dev.fencing.FencedQueue)}); the queue claims, so that the tests see what the
 * producer wrote. {@link FencedQueueContract} stays the worker's contract.
 *
 * <p>A job delayed a little is waited out on the backend's clock ({@link #pause}: a backend whose
 * clock the test moves overrides it); nothing else waits, and no test judges a time on this JVM's
 * clock: a delay is checked against the backend's own, as the leases of claims report it. The tests
 * about keys and about cancelling are inherited.
 *
 * @since 0.1
 */
@FencingDatabase
public abstract class JobProducerContract extends ProducerCancelRules {

  @Test
  void enqueueAddsANewJobClaimableAtOnce() {
    long first = producer.enqueue(queueName, "{\"n\": 1}");
    long second = producer.enqueue(queueName, "{\"n\": 1}");
    assertThat(second).as("a new job each time").isNotEqualTo(first);
    assertThat(claimOneByOne(2)).containsExactly(first, second);
  }

  @Test
  void anyJsonValueIsAPayload() {
    List<String> payloads = List.of("[1, 2]", "\"text\"", "42", "{\"a\": {\"b\": null}}");
    for (String payload : payloads) {
      long id = producer.enqueue(queueName, payload);
      assertThat(producer.find(id).orElseThrow().payload()).isEqualTo(payload);
    }
  }

  @Test
  void enqueueAllReturnsTheJobsIdsInTheOrderOfThePayloads() {
    List<String> payloads = List.of("{\"n\": 0}", "{\"n\": 1}", "{\"n\": 2}", "{\"n\": 3}");
    List<Long> ids = producer.enqueueAll(queueName, payloads);
    assertThat(ids).hasSize(4).doesNotHaveDuplicates();
    for (int i = 0; i < payloads.size(); i++) {
      assertThat(producer.find(ids.get(i)).orElseThrow().payload()).isEqualTo(payloads.get(i));
    }
    assertThat(queue.claimBatch(queueName, "w1", LONG, 10))
        .extracting(Job::id)
        .containsExactlyInAnyOrderElementsOf(ids);
    assertThat(producer.enqueueAll(queueName, List.of())).isEmpty();
    assertThat(producer.enqueueAll(queueName, List.of(), JobOptions.ofPriority(1))).isEmpty();
  }

  @Test
  void enqueueAllIsAllOrNone() {
    assertRefused(
        () -> producer.enqueueAll(queueName, List.of("{}", "{}", "{\"unclosed\": ")),
        "payloads[2]",
        "unclosed");
    assertRefused(
        () -> producer.enqueueAll(queueName, List.of("{}", "[1,"), JobOptions.ofPriority(2)),
        "payloads[1]",
        "[1,");
    assertRefused(
        () -> producer.enqueueAll(queueName, Arrays.asList("{}", null)), "payloads[1]", "null");
    assertNothingWritten();
  }

  @Test
  void badParametersAreRefusedByNameAndWriteNothing() {
    assertRefused(() -> producer.enqueue("Bad-Name", "{}"), "queue", "Bad-Name");
    assertRefused(() -> producer.enqueue((String) null, "{}"), "queue", "null");
    assertRefused(() -> producer.enqueue(queueName, "{not json"), "payload", "{not json");
    assertRefused(() -> producer.enqueue(queueName, "{\"a\": \"\\u0000\"}"), "payload", "u0000");
    assertRefused(() -> producer.enqueue(queueName, (String) null), "payload", "null");
    assertRefused(() -> producer.enqueue(queueName, (KeyedJob) null), "job", "null");
    assertRefused(() -> producer.enqueue(queueName, "{}", null), "options", "null");
    assertRefused(() -> producer.enqueue(queueName, "nope", JobOptions.DEFAULT), "payload", "nope");
    assertRefused(() -> producer.enqueueAll("Bad-Name", List.of("{}")), "queue", "Bad-Name");
    assertRefused(() -> producer.enqueueAll(queueName, null), "payloads", "null");
    assertRefused(() -> producer.enqueueAll(queueName, List.of("{}"), null), "options", "null");
    assertRefused(() -> producer.enqueue("Bad-Name", new KeyedJob("k", "{}")), "queue", "Bad-Name");
    assertRefused(
        () ->
            producer.enqueueKeyed(
                queueName, List.of(new KeyedJob("a", "{}"), new KeyedJob("b", "{x"))),
        "jobs[1].payload",
        "{x");
    assertRefused(() -> producer.enqueueKeyed(queueName, null), "jobs", "null");
    assertRefused(
        () -> producer.enqueueKeyed(queueName, Arrays.asList(new KeyedJob("a", "{}"), null)),
        "jobs[1]",
        "null");
    assertRefused(
        () ->
            producer.enqueueKeyed(
                queueName,
                IntStream.range(0, 10_001).mapToObj(i -> new KeyedJob("k" + i, "{}")).toList()),
        "jobs",
        "10001");
    assertRefused(() -> producer.find(0), "jobId", "0");
    assertNothingWritten();
  }

  @Test
  void aJobDelayedIsClaimableOnlyFromItsTimeOnTheStoresClock() {
    long earlier = producer.enqueue(queueName, "{}");
    Instant writtenNotBefore = producer.find(earlier).orElseThrow().runAt();
    long delayed = producer.enqueue(queueName, "{}", JobOptions.after(HOUR));
    Instant writtenNotAfter = claimedAt(claimNext());
    assertThat(claim()).as("an hour away").isEmpty();
    assertThat(producer.find(delayed).orElseThrow().runAt())
        .as("the delay is added to the store's time of writing")
        .isBetween(writtenNotBefore.plus(HOUR), writtenNotAfter.plus(HOUR));

    long soon = producer.enqueue(queueName, "{}", JobOptions.after(SHORT));
    Job claimed = awaitClaim();
    assertThat(claimed.id()).isEqualTo(soon);
    assertThat(claimedAt(claimed)).isAfterOrEqualTo(producer.find(soon).orElseThrow().runAt());
  }

  @Test
  void aJobToRunAtAnInstantWaitsForIt() {
    Instant ahead = Instant.now().plus(HOUR).truncatedTo(ChronoUnit.SECONDS);
    long future = producer.enqueue(queueName, "{}", JobOptions.at(ahead));
    long latest = producer.enqueue(queueName, "{}", JobOptions.at(JobOptions.MAX_RUN_AT));
    long past = producer.enqueue(queueName, "{}", JobOptions.at(JobOptions.MIN_RUN_AT));
    assertThat(producer.find(future).orElseThrow().runAt()).isEqualTo(ahead);
    assertThat(producer.find(latest).orElseThrow().runAt()).isEqualTo(JobOptions.MAX_RUN_AT);
    assertThat(claimNext().id()).as("a time in the past: at once").isEqualTo(past);
    assertThat(claim()).isEmpty();
    assertThat(queue.depth(queueName).pending()).isEqualTo(2);
  }

  @Test
  void settingARunTimeClearsTheDelayAndTheOtherWayRound() {
    long runAtLast =
        producer.enqueue(queueName, "{}", JobOptions.after(HOUR).withRunAt(JobOptions.MIN_RUN_AT));
    long delayLast =
        producer.enqueue(queueName, "{}", JobOptions.at(JobOptions.MIN_RUN_AT).withDelay(HOUR));
    assertThat(claimNext().id()).isEqualTo(runAtLast);
    assertThat(claim()).isEmpty();
    assertThat(producer.find(delayLast).orElseThrow().state()).isEqualTo(JobState.PENDING);
  }

  @Test
  void higherPriorityIsClaimedFirstThenTheOldest() {
    long lowest = producer.enqueue(queueName, "{}", JobOptions.ofPriority(JobOptions.MIN_PRIORITY));
    long plain = producer.enqueue(queueName, "{}");
    long five = producer.enqueue(queueName, "{}", JobOptions.ofPriority(5));
    long highest =
        producer.enqueue(queueName, "{}", JobOptions.ofPriority(JobOptions.MAX_PRIORITY));
    long alsoFive = producer.enqueue(queueName, "{}", JobOptions.ofPriority(5));
    long negative = producer.enqueue(queueName, "{}", JobOptions.ofPriority(-1));
    assertThat(claimOneByOne(6)).containsExactly(highest, five, alsoFive, plain, negative, lowest);
  }

  @Test
  void enqueueAllGivesEachJobTheOptions() {
    long plain = producer.enqueue(queueName, "{}");
    List<Long> urgent =
        producer.enqueueAll(queueName, List.of("{}", "{}"), JobOptions.ofPriority(3));
    List<Long> later = producer.enqueueAll(queueName, List.of("{}", "{}"), JobOptions.after(HOUR));
    assertThat(claimOneByOne(3)).containsExactlyInAnyOrder(urgent.get(0), urgent.get(1), plain);
    assertThat(claim()).isEmpty();
    for (long id : later) {
      assertThat(producer.find(id).orElseThrow().state()).isEqualTo(JobState.PENDING);
    }
  }

  @Test
  void findReturnsTheJobAsItIsNowAndEmptyForAnUnknownOne() {
    long id = producer.enqueue(queueName, "{\"n\": 1}");
    assertThat(producer.find(id).orElseThrow())
        .usingRecursiveComparison()
        .ignoringFields("runAt", "maxAttempts")
        .isEqualTo(
            new JobSnapshot(
                id,
                queueName,
                JobState.PENDING,
                null,
                0,
                0,
                0,
                "{\"n\": 1}",
                null,
                null,
                Instant.MIN,
                null));

    Job job = claimNext();
    JobSnapshot running = producer.find(id).orElseThrow();
    assertThat(running.state()).isEqualTo(JobState.RUNNING);
    assertThat(running.owner()).isEqualTo("w1");
    assertThat(running.epoch()).isEqualTo(job.epoch().value());
    assertThat(running.leaseExpiresAt()).isEqualTo(job.lease().expiresAt());

    queue.complete(job.lease(), "{\"ok\": true}");
    JobSnapshot completed = producer.find(id).orElseThrow();
    assertThat(completed.state()).isEqualTo(JobState.COMPLETED);
    assertThat(completed.result()).isEqualTo("{\"ok\": true}");
    assertThat(producer.find(id + 1_000_000)).isEmpty();
  }
}
