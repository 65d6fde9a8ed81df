package dev.fencing.testkit.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.Epoch;
import dev.fencing.FencedOffException;
import dev.fencing.FencedOutcome;
import dev.fencing.Job;
import dev.fencing.Lease;
import dev.fencing.QueueLimits;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The running limit half of {@link FencedQueueContract}: at most {@code maxRunning} jobs of a queue
 * hold a valid lease at once. A lease counts while it has not run out and its job still runs under
 * it, so a zombie whose lease ran out frees its slot without ending, and a finished, failed or
 * released job frees its own; a takeover and every claim of one owner count as any claim; a change
 * of the limits binds the next claim and ends no lease; limits are kept per queue, read back, and
 * bad ones refused by name.
 */
abstract class QueueLimitRules extends QueueGroupLimitRules {

  /** A lease that a renewal right after the claim surely reaches before it runs out. */
  private static final Duration SECOND = Duration.ofSeconds(1);

  @Test
  void queueLimitCountsOnlyValidLeases() {
    List<Long> ids = queue.enqueueAll(QUEUE, List.of("{}", "{}", "{}", "{}"));
    queue.setLimits(QUEUE, QueueLimits.maxRunning(2));
    List<Job> first = queue.claimBatch(QUEUE, "w1", LONG, 4);
    assertThat(first).extracting(Job::id).containsExactly(ids.get(0), ids.get(1));
    assertThat(queue.claim(QUEUE, "w2", LONG)).as("the limit is reached").isEmpty();

    queue.complete(first.get(1).lease(), "{}");
    Job zombie = queue.claim(QUEUE, "zombie", SHORT).orElseThrow();
    assertThat(zombie.id()).isEqualTo(ids.get(2));
    Job next = awaitClaim("w3");
    assertThat(next.id()).as("a pending job, in the zombie's slot").isEqualTo(ids.get(3));
    assertThat(queue.claim(QUEUE, "w4", LONG))
        .as("the zombie's expired lease is claimable, but the limit is reached")
        .isEmpty();
    assertThatThrownBy(() -> queue.complete(zombie.lease(), "{\"by\": \"zombie\"}"))
        .isInstanceOf(FencedOffException.class);

    queue.complete(first.get(0).lease(), "{}");
    Job taker = queue.claim(QUEUE, "w5", LONG).orElseThrow();
    assertThat(taker.id()).isEqualTo(zombie.id());
    assertThat(taker.epoch()).isEqualTo(Epoch.of(2));
    queue.enqueue(QUEUE, "{}");
    assertThat(queue.claim(QUEUE, "w6", LONG)).as("the takeover holds a slot").isEmpty();
  }

  /**
   * A zombie whose lease ran out when the limit had room for one job only, which the next claim
   * gave to an older waiting job: the zombie's job was taken from it (an engine may put it back to
   * wait), not ended by it, so each of its writes is refused as expired, not as already finished.
   */
  @Test
  void aZombieWhoseJobATakeoverWithoutRoomPutBackIsRefusedAsExpired() {
    List<Long> ids = queue.enqueueAll(QUEUE, List.of("{}", "{}"));
    queue.setLimits(QUEUE, QueueLimits.maxRunning(1));
    Job zombie = queue.claim(QUEUE, "zombie", SHORT).orElseThrow();
    Job next = awaitClaim("w2");
    assertThat(next.id()).as("the older waiting job, in the zombie's slot").isEqualTo(ids.get(1));

    Lease lease = zombie.lease();
    FencedOutcome.LeaseExpired expired =
        new FencedOutcome.LeaseExpired(lease.key(), Epoch.FIRST, lease.expiresAt());
    assertRefusedAs(() -> queue.release(lease), expired);
    assertRefusedAs(() -> queue.complete(lease, "{}"), expired);
    assertRefusedAs(() -> queue.fail(lease, "late", Duration.ZERO), expired);
    assertRefusedAs(() -> queue.renew(lease, LONG), expired);

    queue.complete(next.lease(), "{}");
    Job taker = queue.claim(QUEUE, "w3", LONG).orElseThrow();
    assertThat(taker.id()).isEqualTo(zombie.id());
    assertThat(taker.epoch()).isEqualTo(Epoch.of(2));
  }

  @Test
  void aFinishedOrFailedOrReleasedJobFreesItsSlot() {
    queue.enqueueAll(QUEUE, List.of("{}", "{}", "{}", "{}"));
    queue.setLimits(QUEUE, QueueLimits.maxRunning(1));
    Job one = queue.claim(QUEUE, "w1", LONG).orElseThrow();
    assertThat(queue.claim(QUEUE, "w2", LONG)).isEmpty();

    queue.complete(one.lease(), "{}");
    Job two = queue.claim(QUEUE, "w2", LONG).orElseThrow();
    assertThat(queue.claim(QUEUE, "w3", LONG)).isEmpty();

    queue.fail(two.lease(), "boom", Duration.ofMinutes(10));
    Job three = queue.claim(QUEUE, "w3", LONG).orElseThrow();
    assertThat(queue.claim(QUEUE, "w4", LONG)).isEmpty();

    queue.release(three.lease());
    assertThat(queue.claim(QUEUE, "w4", LONG)).isPresent();
    assertThat(queue.claim(QUEUE, "w5", LONG)).isEmpty();
  }

  @Test
  void limitsChangeTakeEffectAtTheNextClaim() {
    queue.enqueueAll(QUEUE, List.of("{}", "{}", "{}", "{}", "{}", "{}"));
    queue.setLimits(QUEUE, QueueLimits.maxRunning(1));
    List<Job> running = new ArrayList<>(queue.claimBatch(QUEUE, "w1", LONG, 6));
    assertThat(running).hasSize(1);

    queue.setLimits(QUEUE, QueueLimits.maxRunning(3));
    running.addAll(queue.claimBatch(QUEUE, "w2", LONG, 6));
    assertThat(running).as("raised: two more").hasSize(3);

    queue.setLimits(QUEUE, QueueLimits.maxRunning(1));
    assertThat(queue.claim(QUEUE, "w3", LONG)).as("lowered below the running jobs").isEmpty();
    assertThat(queue.renew(running.get(0).lease(), LONG).epoch())
        .as("a lowered limit ends no lease")
        .isEqualTo(running.get(0).epoch());
    assertThat(queue.complete(running.get(0).lease(), "{}").isAccepted()).isTrue();
    assertThat(queue.complete(running.get(1).lease(), "{}").isAccepted()).isTrue();
    assertThat(queue.claim(QUEUE, "w3", LONG)).as("one still runs, as the limit").isEmpty();
    queue.complete(running.get(2).lease(), "{}");
    assertThat(queue.claim(QUEUE, "w3", LONG)).isPresent();

    queue.setLimits(QUEUE, QueueLimits.NONE);
    assertThat(queue.claimBatch(QUEUE, "w4", LONG, 6)).as("unlimited: the other two").hasSize(2);
  }

  @Test
  void jobsRunningWhenALimitIsSetAreCounted() {
    queue.enqueueAll(QUEUE, List.of("{}", "{}", "{}", "{}"));
    List<Job> running = queue.claimBatch(QUEUE, "w1", LONG, 2);
    queue.setLimits(QUEUE, QueueLimits.maxRunning(2));
    assertThat(queue.claim(QUEUE, "w2", LONG)).as("the two running jobs fill it").isEmpty();
    queue.complete(running.get(0).lease(), "{}");
    assertThat(queue.claim(QUEUE, "w2", LONG)).isPresent();
    assertThat(queue.claim(QUEUE, "w3", LONG)).isEmpty();
  }

  @Test
  void limitsAreKeptPerQueue() {
    queue.enqueueAll(QUEUE, List.of("{}", "{}"));
    queue.enqueueAll("other", List.of("{}", "{}"));
    queue.setLimits(QUEUE, QueueLimits.maxRunning(1));

    assertThat(queue.claimBatch(QUEUE, "w1", LONG, 2)).hasSize(1);
    assertThat(queue.claimBatch("other", "w1", LONG, 2)).hasSize(2);
    assertThat(queue.limits("other")).isEqualTo(QueueLimits.NONE);
  }

  @Test
  void limitsAreReadBack() {
    assertThat(queue.limits(QUEUE)).isEqualTo(QueueLimits.NONE);
    assertThat(queue.setLimits(QUEUE, QueueLimits.maxRunning(5))).isEqualTo(QueueLimits.NONE);
    assertThat(queue.limits(QUEUE)).isEqualTo(QueueLimits.maxRunning(5));
    QueueLimits most = QueueLimits.maxRunning(QueueLimits.MAX_RUNNING);
    assertThat(queue.setLimits(QUEUE, most)).isEqualTo(QueueLimits.maxRunning(5));
    assertThat(queue.limits(QUEUE)).isEqualTo(most);
    assertThat(queue.setLimits(QUEUE, QueueLimits.NONE)).isEqualTo(most);
    assertThat(queue.limits(QUEUE)).isEqualTo(QueueLimits.NONE);
    assertThat(queue.setLimits(QUEUE, QueueLimits.NONE)).isEqualTo(QueueLimits.NONE);
  }

  @Test
  void aRenewedLeaseKeepsItsSlot() {
    queue.enqueueAll(QUEUE, List.of("{}", "{}"));
    queue.setLimits(QUEUE, QueueLimits.maxRunning(1));
    Job job = queue.claim(QUEUE, "w1", SECOND).orElseThrow();
    Lease renewed = queue.renew(job.lease(), LONG);

    sleepPast(job.lease().expiresAt());
    assertThat(queue.claim(QUEUE, "w2", LONG)).as("the renewed lease still counts").isEmpty();
    assertThat(queue.complete(renewed, "{}").isAccepted()).isTrue();
    assertThat(queue.claim(QUEUE, "w2", LONG)).isPresent();
  }

  @Test
  void oneOwnerClaimingTwiceCountsTwice() {
    queue.enqueueAll(QUEUE, List.of("{}", "{}", "{}"));
    queue.setLimits(QUEUE, QueueLimits.maxRunning(2));
    assertThat(queue.claim(QUEUE, "w1", LONG)).isPresent();
    assertThat(queue.claim(QUEUE, "w1", LONG)).isPresent();
    assertThat(queue.claim(QUEUE, "w1", LONG)).isEmpty();
    assertThat(queue.claim(QUEUE, "w2", LONG)).isEmpty();
  }

  @Test
  void badLimitsAreRefusedNamingTheParameter() {
    assertRefused(() -> QueueLimits.maxRunning(0), "maxRunning", "0");
    assertRefused(
        () -> QueueLimits.maxRunning(QueueLimits.MAX_RUNNING + 1), "maxRunning", "1000001");
    assertRefused(() -> queue.setLimits(QUEUE, null), "limits", "null");
    assertRefused(
        () -> queue.setLimits("Bad-Queue", QueueLimits.maxRunning(1)), "queue", "Bad-Queue");
    assertRefused(() -> queue.limits("Bad-Queue"), "queue", "Bad-Queue");
    assertThat(queue.limits(QUEUE)).as("nothing written").isEqualTo(QueueLimits.NONE);
  }
}
