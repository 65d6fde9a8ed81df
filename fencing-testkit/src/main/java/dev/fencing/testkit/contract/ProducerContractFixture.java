package dev.fencing.testkit.contract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.FencedQueue;
import dev.fencing.Job;
import dev.fencing.JobProducer;
import dev.fencing.QueueDepth;
import dev.fencing.testkit.db.TestSchema;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInstance;

/**
 * What every test of {@link JobProducerContract} stands on: the producer under test, the backend's
 * whole queue beside it to see what the producer did (a producer alone cannot claim), and a queue
 * name of each test's own. One schema serves the whole class, so that installing it is paid once:
 * the tests keep apart by their queue names.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class ProducerContractFixture {

  /** A lease long enough never to run out during a test. */
  static final Duration LONG = Duration.ofMinutes(5);

  /** A delay short enough to wait out. */
  static final Duration SHORT = Duration.ofMillis(300);

  /** An hour: long enough that a job delayed by it never falls due during a test. */
  static final Duration HOUR = Duration.ofHours(1);

  private int tests;

  /** The backend's queue, one for the test class. */
  protected FencedQueue queue;

  /** The producer under test, one for the test class, writing to {@link #queue}'s store. */
  protected JobProducer producer;

  /** The queue this test enqueues to, empty when it starts. */
  protected String queueName;

  /**
   * Returns the backend's queue, installed in {@code schema}, with at most 3 attempts per job.
   * Called once for the test class.
   */
  protected abstract FencedQueue queue(TestSchema schema);

  /**
   * Returns the producer to test, writing to the same store as {@code queue}: by default the queue
   * itself, in its producer's role. A backend whose producer is an object of its own overrides
   * this.
   */
  protected JobProducer producer(FencedQueue queue) {
    return queue;
  }

  /**
   * Lets {@code duration} pass on the backend's clock, so that delayed jobs fall due: sleeps, as a
   * backend's clock runs by itself. A backend whose clock the test moves overrides this to move it.
   */
  protected void pause(Duration duration) {
    QueueContractFixture.sleep(duration);
  }

  @BeforeAll
  void createQueue(TestSchema schema) {
    queue = queue(schema);
    producer = producer(queue);
  }

  @BeforeEach
  void nameQueue() {
    queueName = "producer_" + ++tests;
    assertThat(queue.depth(queueName)).isEqualTo(new QueueDepth(0, 0, 0));
  }

  /** Asserts that this test's queue holds no job: nothing was written. */
  void assertNothingWritten() {
    assertThat(queue.depth(queueName)).as("nothing written").isEqualTo(new QueueDepth(0, 0, 0));
    assertThat(queue.claim(queueName, "w1", LONG)).as("nothing written").isEmpty();
  }

  /** Claims the next job of this test's queue, which must be there. */
  Job claimNext() {
    return claim().orElseThrow(() -> new AssertionError("nothing claimable"));
  }

  /** Claims the next job of this test's queue, if there is one. */
  Optional<Job> claim() {
    return queue.claim(queueName, "w1", LONG);
  }

  /** Claims {@code n} jobs one at a time and returns their ids in the order they came. */
  List<Long> claimOneByOne(int n) {
    List<Long> ids = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      ids.add(claim().orElseThrow(() -> new AssertionError("nothing claimable")).id());
    }
    return ids;
  }

  /** Claims until a delayed job fell due and the claim succeeds, at most 10 s. */
  Job awaitClaim() {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (System.nanoTime() < deadline) {
      Optional<Job> job = claim();
      if (job.isPresent()) {
        return job.get();
      }
      pause(Duration.ofMillis(25));
    }
    throw new AssertionError("no job fell due within 10 s");
  }

  /** The instant a claim was made at on the backend's clock: its lease's expiry less its length. */
  static Instant claimedAt(Job job) {
    return job.lease().expiresAt().minus(LONG);
  }
}
