package dev.fencing.testkit.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.CancelResult;
import dev.fencing.Epoch;
import dev.fencing.FencedOffException;
import dev.fencing.FencedOutcome;
import dev.fencing.FencedQueue;
import dev.fencing.Job;
import dev.fencing.testkit.db.TestSchema;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import org.junit.jupiter.api.BeforeEach;

/**
 * What every test of {@link FencedQueueContract} and {@link JobProducerContract} stands on: the
 * backend's queue in a fresh schema, the lease lengths, the ways to let a lease run out on the
 * backend's clock, and the takeovers the fencing tests start from.
 */
abstract class QueueContractFixture {

  /** A lease long enough never to run out during a test. */
  protected static final Duration LONG = Duration.ofMinutes(5);

  /** A lease short enough to wait out. */
  protected static final Duration SHORT = Duration.ofMillis(300);

  /** The queue the tests use. */
  protected static final String QUEUE = "contract";

  /** The backend's queue, a new one for each test. */
  protected FencedQueue queue;

  /** Returns the backend's queue, installed in {@code schema}, with at most 3 attempts per job. */
  protected abstract FencedQueue queue(TestSchema schema);

  @BeforeEach
  void createQueue(TestSchema schema) {
    queue = queue(schema);
  }

  /** Claims for {@code owner} until a lease expires and the claim succeeds, at most 10 s. */
  protected Job awaitClaim(String owner) {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (System.nanoTime() < deadline) {
      Optional<Job> job = queue.claim(QUEUE, owner, LONG);
      if (job.isPresent()) {
        return job.get();
      }
      pause(Duration.ofMillis(25));
    }
    throw new AssertionError("no lease expired within 10 s");
  }

  /**
   * Lets time pass until {@code instant} has passed on this clock, plus a margin for clock
   * differences.
   */
  protected void sleepPast(Instant instant) {
    Duration wait = Duration.between(Instant.now(), instant).plusMillis(150);
    if (!wait.isNegative()) {
      pause(wait);
    }
  }

  /**
   * Lets {@code duration} pass on the backend's clock, so that leases and retry delays run out:
   * sleeps, as a backend's clock runs by itself. A backend whose clock the test moves overrides
   * this to move it by {@code duration}.
   */
  protected void pause(Duration duration) {
    sleep(duration);
  }

  /** Sleeps {@code duration} of this JVM's time; an interrupt fails the test. */
  static void sleep(Duration duration) {
    try {
      Thread.sleep(duration);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    }
  }

  /** A job claimed by {@code zombie} on a short lease, then by {@code taker} once it ran out. */
  record Takeover(long id, Job zombie, Job taker) {}

  /** Enqueues one job and lets {@code taker} take it from {@code zombie}, whose lease runs out. */
  Takeover takeover(String zombie, String taker) {
    long id = queue.enqueue(QUEUE, "{}");
    Job first = queue.claim(QUEUE, zombie, SHORT).orElseThrow();
    Job second = awaitClaim(taker);
    assertThat(second.id()).isEqualTo(id);
    assertThat(second.epoch()).isEqualTo(Epoch.of(2));
    return new Takeover(id, first, second);
  }

  /**
   * Two jobs, each claimed twice by one owner: first on a short lease, then on {@code second}'s.
   */
  record TwoLeasesEach(List<Long> ids, List<Job> first, List<Job> second) {}

  /** Enqueues two jobs, claims both with a short lease, and both again once it ran out. */
  TwoLeasesEach twoLeasesEach(String owner, Duration secondLease) {
    List<Long> ids = queue.enqueueAll(QUEUE, List.of("{}", "{}"));
    List<Job> first = queue.claimBatch(QUEUE, owner, SHORT, 2);
    sleepPast(first.get(1).lease().expiresAt());
    List<Job> second = queue.claimBatch(QUEUE, owner, secondLease, 2);
    assertThat(second).extracting(Job::id).isEqualTo(ids);
    return new TwoLeasesEach(ids, first, second);
  }

  /** Asserts that {@code result} is a cancel that took, and returns it. */
  static CancelResult.Cancelled cancelled(CancelResult result) {
    assertThat(result).isInstanceOf(CancelResult.Cancelled.class);
    return (CancelResult.Cancelled) result;
  }

  static void assertRefused(Runnable call, String parameter, String value) {
    assertThatThrownBy(call::run)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(parameter)
        .hasMessageContaining(value);
  }

  /** Asserts that {@code write} is fenced off, with a refusal that passes {@code check}. */
  static void assertRefusal(Runnable write, Consumer<FencedOutcome.Refused> check) {
    assertThatThrownBy(write::run)
        .isInstanceOfSatisfying(FencedOffException.class, e -> check.accept(e.refusal()));
  }

  static void assertRefusedAs(Runnable write, FencedOutcome.Refused expected) {
    assertRefusal(write, refusal -> assertThat(refusal).isEqualTo(expected));
  }

  static void assertRefusedAsSuperseded(Runnable write) {
    assertRefusal(
        write, refusal -> assertThat(refusal).isInstanceOf(FencedOutcome.Superseded.class));
  }
}
