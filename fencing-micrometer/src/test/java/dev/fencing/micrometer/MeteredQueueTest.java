package dev.fencing.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.CancelResult;
import dev.fencing.CommitOutcome;
import dev.fencing.Epoch;
import dev.fencing.FencedOffException;
import dev.fencing.FencedOutcome;
import dev.fencing.FencedQueue;
import dev.fencing.Job;
import dev.fencing.JobConsumer.Completion;
import dev.fencing.Lease;
import dev.fencing.OutboxMessage;
import dev.fencing.QueueLimits;
import dev.fencing.Renewal;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.testkit.db.FencingDatabase;
import dev.fencing.testkit.db.TestSchema;
import dev.fencing.testkit.memory.InMemoryQueue;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.search.RequiredSearch;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Every queue meter, read from a registry after real operations on PostgreSQL. */
@FencingDatabase
class MeteredQueueTest {

  private static final Duration LONG = Duration.ofMinutes(5);
  private static final Duration SHORT = Duration.ofMillis(300);
  private static final String Q = "emails";

  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private FencedQueue real;
  private FencedQueue queue;

  @BeforeEach
  void build(TestSchema schema) {
    real = PostgresFencing.builder(schema.sharedPool()).schema(schema.name()).build().queue();
    queue = FencingMetrics.builder(registry).tags("service", "test").build().queue(real);
  }

  @Test
  void limitsAreTheWrappedQueuesAndItsClaimsObeyThem() {
    InMemoryQueue memory = InMemoryQueue.builder().build();
    FencedQueue metered = FencingMetrics.builder(registry).build().queue(memory);
    memory.enqueueAll(Q, List.of("{}", "{}", "{}"));

    assertThat(metered.setLimits(Q, QueueLimits.maxRunning(2))).isEqualTo(QueueLimits.NONE);
    assertThat(memory.limits(Q)).isEqualTo(QueueLimits.maxRunning(2));
    assertThat(metered.limits(Q)).isEqualTo(QueueLimits.maxRunning(2));
    assertThat(metered.claimBatch(Q, "w1", LONG, 3)).hasSize(2);
    assertThat(metered.claim(Q, "w1", LONG)).isEmpty();
    assertThat(count("fencing.jobs.claimed", "queue", Q)).isEqualTo(2);
  }

  @Test
  void claimsAndCommitsAreTimedAndCounted() {
    queue.enqueueAll(Q, List.of("{}", "{}", "{}"));
    Job one = queue.claim(Q, "w1", LONG).orElseThrow();
    List<Job> two = queue.claimBatch(Q, "w1", LONG, 10);
    assertThat(queue.claim(Q, "w1", LONG)).isEmpty();

    queue.complete(one.lease(), "{}");
    queue.completeAll(two.stream().map(job -> new Completion(job.lease(), "{}")).toList());

    assertThat(count("fencing.jobs.enqueued", "queue", Q)).isEqualTo(3);
    assertThat(timer("fencing.claim", "queue", Q, "error", "none").count()).isEqualTo(3);
    assertThat(count("fencing.jobs.claimed", "queue", Q)).isEqualTo(3);
    assertThat(timer("fencing.commit", "error", "none").count()).isEqualTo(2);
    assertThat(count("fencing.commits", "outcome", "accepted")).isEqualTo(3);
    assertThat(registry.find("fencing.fenced.off").counters()).isEmpty();
    assertThat(registry.get("fencing.commits").counter().getId().getTag("service"))
        .isEqualTo("test");
  }

  @Test
  void jobsEnqueuedWithOptionsAreTimedAndCountedToo() {
    queue.enqueue(Q, "{}", dev.fencing.JobOptions.ofPriority(2));
    queue.enqueueAll(Q, List.of("{}", "{}"), dev.fencing.JobOptions.after(LONG));

    assertThat(count("fencing.jobs.enqueued", "queue", Q)).isEqualTo(3);
    assertThat(timer("fencing.enqueue", "queue", Q, "error", "none").count()).isEqualTo(2);
  }

  @Test
  void aKeyedJobWhoseKeyWasTakenIsNotCountedAsEnqueuedAgain() {
    queue.enqueue(Q, new dev.fencing.KeyedJob("order-1", "{}"));
    queue.enqueueKeyed(
        Q,
        List.of(
            new dev.fencing.KeyedJob("order-1", "{}"), new dev.fencing.KeyedJob("order-2", "{}")));

    assertThat(count("fencing.jobs.enqueued", "queue", Q)).isEqualTo(2);
    assertThat(timer("fencing.enqueue", "queue", Q, "error", "none").count()).isEqualTo(2);
  }

  @Test
  void aZombiesCommitIsCountedAsFencedOffBySupersededAtCommit() throws Exception {
    queue.enqueue(Q, "{}");
    Job zombie = queue.claim(Q, "zombie", SHORT).orElseThrow();
    Job healthy = awaitClaim("healthy");
    assertThat(healthy.epoch()).isGreaterThan(zombie.epoch());

    assertThatThrownBy(() -> queue.complete(zombie.lease(), "{\"late\":true}"))
        .isInstanceOf(FencedOffException.class);
    queue.complete(healthy.lease(), "{}");

    assertThat(count("fencing.fenced.off", "reason", "superseded", "stage", "commit")).isEqualTo(1);
    assertThat(count("fencing.commits", "outcome", "refused")).isEqualTo(1);
    assertThat(count("fencing.commits", "outcome", "accepted")).isEqualTo(1);
    // a refusal is the store's answer, not an error of the call
    assertThat(timer("fencing.commit", "error", "none").count()).isEqualTo(2);
  }

  @Test
  void anExpiredLeaseNobodyReclaimedIsCountedAsExpired() throws Exception {
    queue.enqueue(Q, "{}");
    Job job = queue.claim(Q, "w1", SHORT).orElseThrow();
    awaitExpiry();

    assertThatThrownBy(() -> queue.complete(job.lease(), "{}"))
        .isInstanceOf(FencedOffException.class);

    assertThat(count("fencing.fenced.off", "reason", "expired", "stage", "commit")).isEqualTo(1);
    // by the worker's clock the lease had run out: recorded (as zero), not dropped as negative
    assertThat(summary().count()).isEqualTo(1);
    assertThat(summary().max()).isLessThan(SHORT.toMillis() / 1000.0);
  }

  @Test
  void aRetriedCommitIsCountedAsARepeat() {
    queue.enqueue(Q, "{}");
    Job job = queue.claim(Q, "w1", LONG).orElseThrow();

    queue.complete(job.lease(), "{\"n\":1}");
    queue.complete(job.lease(), "{\"n\":1}");
    assertThatThrownBy(() -> queue.complete(job.lease(), "{\"n\":2}"))
        .isInstanceOf(FencedOffException.class);

    assertThat(count("fencing.commits", "outcome", "accepted")).isEqualTo(1);
    assertThat(count("fencing.commits", "outcome", "repeat")).isEqualTo(1);
    assertThat(count("fencing.fenced.off", "reason", "finished", "stage", "commit")).isEqualTo(1);
  }

  @Test
  void leaseTimeLeftAtCommitIsRecordedInSeconds() {
    queue.enqueue(Q, "{}");
    Job job = queue.claim(Q, "w1", LONG).orElseThrow();

    queue.complete(job.lease(), "{}");

    assertThat(summary().getId().getBaseUnit()).isEqualTo("seconds");
    assertThat(summary().count()).isEqualTo(1);
    assertThat(summary().max()).isGreaterThan(0).isLessThanOrEqualTo(LONG.toSeconds() + 60);
  }

  @Test
  void aBatchCountsEachItemsOutcomeInvalidIncluded() {
    queue.enqueueAll(Q, List.of("{}", "{}"));
    List<Job> jobs = queue.claimBatch(Q, "w1", LONG, 2);
    Lease forged = new Lease(jobs.get(0).id(), "intruder", Epoch.FIRST, Instant.now());

    List<CommitOutcome> outcomes =
        queue.completeAll(
            List.of(
                new Completion(jobs.get(0).lease(), "{\"bad\": \"\\u0000\"}"),
                new Completion(jobs.get(1).lease(), "{}"),
                new Completion(forged, "{}")));

    assertThat(outcomes).hasSize(3);
    assertThat(outcomes.get(0)).isInstanceOf(CommitOutcome.Invalid.class);
    assertThat(count("fencing.commits", "outcome", "invalid")).isEqualTo(1);
    assertThat(count("fencing.commits", "outcome", "accepted")).isEqualTo(1);
    assertThat(count("fencing.fenced.off", "reason", "not_owner", "stage", "commit")).isEqualTo(1);
    assertThat(timer("fencing.commit", "error", "none").count()).isEqualTo(1);
    assertThat(summary().count()).isEqualTo(3);
  }

  @Test
  void renewalsAndTheirFailuresAreCounted() throws Exception {
    queue.enqueueAll(Q, List.of("{}", "{}"));
    Job kept = queue.claim(Q, "w1", LONG).orElseThrow();
    Job lost = queue.claim(Q, "w1", SHORT).orElseThrow();
    queue.renew(kept.lease(), LONG);
    awaitExpiry();

    assertThatThrownBy(() -> queue.renew(lost.lease(), LONG))
        .isInstanceOf(FencedOffException.class);
    List<Renewal> renewals = queue.renewAll(List.of(kept.lease(), lost.lease()), LONG);

    assertThat(renewals.get(0)).isInstanceOf(Renewal.Renewed.class);
    assertThat(renewals.get(1)).isInstanceOf(Renewal.Lost.class);
    assertThat(count("fencing.renewals", "outcome", "renewed")).isEqualTo(2);
    assertThat(count("fencing.renewals", "outcome", "lost")).isEqualTo(2);
    assertThat(count("fencing.fenced.off", "reason", "expired", "stage", "renew")).isEqualTo(2);
    assertThat(timer("fencing.renew", "error", "none").count()).isEqualTo(3);
  }

  @Test
  void aCancelledJobsRefusalsAreCountedAsCancelled() {
    long id = queue.enqueue(Q, "{}");
    Job job = queue.claim(Q, "w1", LONG).orElseThrow();
    assertThat(queue.cancel(id, "not needed")).isInstanceOf(CancelResult.Cancelled.class);

    assertThatThrownBy(() -> queue.complete(job.lease(), "{}"))
        .isInstanceOf(FencedOffException.class);
    assertThat(queue.renewAll(List.of(job.lease()), LONG).getFirst())
        .isInstanceOf(Renewal.Lost.class);

    assertThat(count("fencing.fenced.off", "reason", "cancelled", "stage", "commit")).isEqualTo(1);
    assertThat(count("fencing.fenced.off", "reason", "cancelled", "stage", "renew")).isEqualTo(1);
  }

  @Test
  void refusedFailuresAndReleasesAreCountedAtTheirStage() throws Exception {
    queue.enqueue(Q, "{}");
    Job zombie = queue.claim(Q, "zombie", SHORT).orElseThrow();
    Job healthy = awaitClaim("healthy");

    assertThatThrownBy(() -> queue.fail(zombie.lease(), "boom", Duration.ZERO))
        .isInstanceOf(FencedOffException.class);
    assertThatThrownBy(() -> queue.release(zombie.lease())).isInstanceOf(FencedOffException.class);
    queue.release(healthy.lease());

    assertThat(count("fencing.fenced.off", "reason", "superseded", "stage", "fail")).isEqualTo(1);
    assertThat(count("fencing.fenced.off", "reason", "superseded", "stage", "release"))
        .isEqualTo(1);
    assertThat(timer("fencing.fail", "error", "none").count()).isEqualTo(1);
    assertThat(timer("fencing.release", "error", "none").count()).isEqualTo(2);
  }

  @Test
  void finalFailuresAreTimedApartAndTheirRefusalsCountedAtTheirOwnStage() throws Exception {
    long id = queue.enqueue(Q, "{}");
    Job zombie = queue.claim(Q, "zombie", SHORT).orElseThrow();
    Job healthy = awaitClaim("healthy");

    assertThatThrownBy(() -> queue.failFinally(zombie.lease(), "does not decode"))
        .isInstanceOf(FencedOffException.class);
    assertThat(queue.failFinally(healthy.lease(), "does not decode").repeat()).isFalse();

    assertThat(real.find(id).orElseThrow().lastError()).isEqualTo("does not decode");
    assertThat(count("fencing.fenced.off", "reason", "superseded", "stage", "fail_finally"))
        .isEqualTo(1);
    assertThat(timer("fencing.fail.finally", "error", "none").count()).isEqualTo(2);
    assertThat(registry.find("fencing.fail").timers()).isEmpty();
  }

  @Test
  void anExceptionOfTheDelegateIsCountedAndRethrownUnchanged() {
    Throwable fromReal = catchThrown(() -> real.claim("Not A Queue", "w1", LONG));
    Throwable fromMetered = catchThrown(() -> queue.claim("Not A Queue", "w1", LONG));

    assertThat(fromMetered)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(fromReal.getMessage());
    assertThat(
            timer("fencing.claim", "queue", "Not A Queue", "error", "IllegalArgumentException")
                .count())
        .isEqualTo(1);
    assertThat(registry.find("fencing.jobs.claimed").counters()).isEmpty();
  }

  @Test
  void aCommitWithMessagesReachesTheBackendsOutbox() {
    queue.enqueue(Q, "{}");
    Job job = queue.claim(Q, "w1", LONG).orElseThrow();

    // the interface's default would refuse messages: only the backend's own method takes them
    assertThat(
            queue.complete(
                job.lease(), "{}", List.of(new OutboxMessage("ledger", "acct-1", "{\"n\": 1}"))))
        .isEqualTo(new FencedOutcome.Accepted(job.lease().key(), job.epoch(), false));
    assertThat(count("fencing.commits", "outcome", "accepted")).isEqualTo(1);
  }

  @Test
  void readsAreForwardedUnmetered() {
    long id = queue.enqueue(Q, "{}");

    assertThat(queue.find(id)).isEqualTo(real.find(id));
    assertThat(queue.depth(Q)).isEqualTo(real.depth(Q));
  }

  private static Throwable catchThrown(Runnable call) {
    try {
      call.run();
    } catch (RuntimeException e) {
      return e;
    }
    throw new AssertionError("expected the call to throw");
  }

  private Job awaitClaim(String owner) throws InterruptedException {
    for (int i = 0; i < 200; i++) {
      Optional<Job> job = queue.claim(Q, owner, LONG);
      if (job.isPresent()) {
        return job.get();
      }
      Thread.sleep(25);
    }
    throw new AssertionError("the short lease never expired");
  }

  /**
   * Waits out the lease and a margin on this JVM's clock: elapsed time, so a database clock set
   * apart from ours does not matter.
   */
  private static void awaitExpiry() throws InterruptedException {
    Thread.sleep(SHORT.plusMillis(300).toMillis());
  }

  private double count(String name, String... tags) {
    return search(name, tags).counter().count();
  }

  private Timer timer(String name, String... tags) {
    return search(name, tags).timer();
  }

  private DistributionSummary summary() {
    return registry.get("fencing.lease.remaining").summary();
  }

  private RequiredSearch search(String name, String... tags) {
    return registry.get(name).tags(tags);
  }
}
