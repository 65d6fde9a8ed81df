package dev.fencing.testkit.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.Epoch;
import dev.fencing.FencedOffException;
import dev.fencing.Job;
import dev.fencing.JobOptions;
import dev.fencing.KeyedJob;
import dev.fencing.QueueLimits;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The group and rate half of the limits of {@link FencedQueueContract}. A job of a group counts
 * against its group from its claim until it ends or is given back, so a job whose lease ran out
 * keeps its group's place and is taken over before another of its group starts; with FIFO a group's
 * jobs start in the order they were enqueued and a head waiting for its retry holds its group back;
 * a rate hands out at most its starts per window, the queue's counting every hand-out, a group's
 * its jobs' starts; a queue without group limits claims grouped jobs as any other.
 */
abstract class QueueGroupLimitRules extends QueueContractFixture {

  private static final QueueLimits ONE_PER_GROUP = QueueLimits.NONE.withMaxRunningPerGroup(1);
  private static final QueueLimits ONE_PER_GROUP_IN_ORDER = ONE_PER_GROUP.withFifoPerGroup();
  private static final Duration HOUR = Duration.ofHours(1);

  private long enqueue(String group) {
    return queue.enqueue(QUEUE, "{}", JobOptions.inGroup(group));
  }

  private List<Long> claimedIds(String owner, Duration lease) {
    return queue.claimBatch(QUEUE, owner, lease, 10).stream().map(Job::id).toList();
  }

  @Test
  void aGroupLimitCountsTheGroupsJobsUnderWay() {
    long a1 = enqueue("a");
    long a2 = enqueue("a");
    long b1 = enqueue("b");
    long plain = queue.enqueue(QUEUE, "{}");
    queue.setLimits(QUEUE, ONE_PER_GROUP);

    List<Job> first = queue.claimBatch(QUEUE, "w1", LONG, 10);
    assertThat(first).extracting(Job::id).containsExactly(a1, b1, plain);
    assertThat(queue.claim(QUEUE, "w2", LONG)).as("a's place is taken").isEmpty();

    queue.complete(first.get(0).lease(), "{}");
    assertThat(claimedIds("w2", LONG)).containsExactly(a2);
  }

  @Test
  void aGroupsJobKeepsItsPlaceUntilItEndsOrIsGivenBack() {
    long a1 = enqueue("a");
    long a2 = enqueue("a");
    queue.setLimits(QUEUE, ONE_PER_GROUP);
    Job zombie = queue.claim(QUEUE, "zombie", SHORT).orElseThrow();
    assertThat(zombie.id()).isEqualTo(a1);

    Job taker = awaitClaim("taker");
    assertThat(taker.id()).as("the expired job, before another of its group").isEqualTo(a1);
    assertThat(taker.epoch()).isEqualTo(Epoch.of(2));
    assertThat(queue.claim(QUEUE, "w3", LONG)).isEmpty();
    assertThatThrownBy(() -> queue.complete(zombie.lease(), "{}"))
        .isInstanceOf(FencedOffException.class);

    queue.fail(taker.lease(), "boom", Duration.ofMinutes(10));
    assertThat(claimedIds("w3", LONG))
        .as("given back: the group's place is free")
        .containsExactly(a2);
  }

  @Test
  void aGroupsJobsRunningWhenItsLimitIsSetAreCounted() {
    long a1 = enqueue("a");
    enqueue("a");
    Job first = queue.claim(QUEUE, "w1", LONG).orElseThrow();
    assertThat(first.id()).isEqualTo(a1);
    queue.setLimits(QUEUE, ONE_PER_GROUP);
    assertThat(queue.claim(QUEUE, "w2", LONG)).as("a1 holds a's place").isEmpty();
    queue.complete(first.lease(), "{}");
    assertThat(queue.claim(QUEUE, "w2", LONG)).isPresent();
  }

  @Test
  void oneOwnerClaimingTwiceCountsTwiceInItsGroup() {
    enqueue("a");
    enqueue("a");
    enqueue("a");
    queue.setLimits(QUEUE, QueueLimits.NONE.withMaxRunningPerGroup(2));
    assertThat(queue.claim(QUEUE, "w1", LONG)).isPresent();
    assertThat(queue.claim(QUEUE, "w1", LONG)).isPresent();
    assertThat(queue.claim(QUEUE, "w1", LONG)).isEmpty();
  }

  @Test
  void fifoPerGroupStartsAGroupsJobsInTheOrderEnqueued() {
    long a1 = queue.enqueue(QUEUE, "{}", JobOptions.inGroup("a").withPriority(-5));
    long a2 = queue.enqueue(QUEUE, "{}", JobOptions.inGroup("a").withPriority(5));
    long b1 = enqueue("b");
    queue.setLimits(QUEUE, ONE_PER_GROUP_IN_ORDER);

    List<Job> first = queue.claimBatch(QUEUE, "w1", LONG, 10);
    assertThat(first)
        .extracting(Job::id)
        .as("a1 before a2, whatever a2's priority")
        .containsExactlyInAnyOrder(a1, b1);
    queue.complete(first.get(0).lease(), "{}");
    assertThat(claimedIds("w2", LONG)).containsExactly(a2);
  }

  @Test
  void aFifoHeadWaitingForItsRetryHoldsItsGroupBack() {
    long a1 = enqueue("a");
    enqueue("a");
    queue.setLimits(QUEUE, QueueLimits.NONE.withFifoPerGroup());
    Job head = queue.claim(QUEUE, "w1", LONG).orElseThrow();
    assertThat(head.id()).isEqualTo(a1);

    queue.fail(head.lease(), "boom", Duration.ofMinutes(10));
    long b1 = enqueue("b");
    assertThat(claimedIds("w2", LONG))
        .as("a2 waits behind a1's retry; b is free")
        .containsExactly(b1);
  }

  @Test
  void groupedJobsOfAQueueWithoutGroupLimitsAreClaimedAsAnyOther() {
    List<Long> ids = queue.enqueueAll(QUEUE, List.of("{}", "{}"), JobOptions.inGroup("a"));
    long ranked = queue.enqueue(QUEUE, "{}", JobOptions.inGroup("a").withPriority(3));
    queue.setLimits(QUEUE, QueueLimits.maxRunning(10));
    assertThat(claimedIds("w1", LONG)).containsExactly(ids.get(0), ids.get(1), ranked);
  }

  @Test
  void batchedAndKeyedJobsCarryTheirGroups() {
    List<Long> batch = queue.enqueueAll(QUEUE, List.of("{}", "{}"), JobOptions.inGroup("a"));
    var keyed =
        queue.enqueueKeyed(
            QUEUE,
            List.of(
                new KeyedJob("k1", "{}", JobOptions.inGroup("b")),
                new KeyedJob("k2", "{}", JobOptions.inGroup("b"))));
    queue.setLimits(QUEUE, ONE_PER_GROUP_IN_ORDER);
    assertThat(claimedIds("w1", LONG)).containsExactlyInAnyOrder(batch.get(0), keyed.get(0).id());
  }

  @Test
  void aQueueRateHandsOutAtMostItsStartsPerWindow() {
    queue.enqueueAll(QUEUE, List.of("{}", "{}", "{}", "{}"));
    queue.setLimits(QUEUE, QueueLimits.NONE.withRate(2, HOUR));
    List<Job> first = queue.claimBatch(QUEUE, "w1", LONG, 4);
    assertThat(first).hasSize(2);
    queue.complete(first.get(0).lease(), "{}");
    assertThat(queue.claim(QUEUE, "w2", LONG)).as("no token left this hour").isEmpty();
  }

  @Test
  void aRatesTokensComeBackOverItsWindow() {
    queue.enqueueAll(QUEUE, List.of("{}", "{}", "{}"));
    queue.setLimits(QUEUE, QueueLimits.NONE.withRate(1, Duration.ofMillis(200)));
    assertThat(queue.claimBatch(QUEUE, "w1", LONG, 3)).hasSize(1);
    pause(Duration.ofMillis(250));
    assertThat(queue.claimBatch(QUEUE, "w1", LONG, 3)).as("one token back, no more").hasSize(1);
  }

  @Test
  void aGroupRateCountsEachGroupsStarts() {
    long a1 = enqueue("a");
    enqueue("a");
    long b1 = enqueue("b");
    enqueue("b");
    long plain = queue.enqueue(QUEUE, "{}");
    queue.setLimits(QUEUE, QueueLimits.NONE.withRatePerGroup(1, HOUR));
    List<Job> first = queue.claimBatch(QUEUE, "w1", LONG, 10);
    assertThat(first).extracting(Job::id).containsExactly(a1, b1, plain);
    first.forEach(j -> queue.complete(j.lease(), "{}"));
    assertThat(queue.claim(QUEUE, "w2", LONG)).as("each group's token is spent").isEmpty();
  }

  @Test
  void jobsWaitingForALimitAreCounted() {
    queue.enqueueAll(QUEUE, List.of("{}", "{}", "{}"));
    assertThat(queue.waitingForLimits(QUEUE)).as("no limits").isZero();
    queue.setLimits(QUEUE, QueueLimits.maxRunning(1));
    assertThat(queue.waitingForLimits(QUEUE)).as("room left").isZero();
    Job one = queue.claim(QUEUE, "w1", LONG).orElseThrow();
    assertThat(queue.waitingForLimits(QUEUE)).as("full: every pending job").isEqualTo(2);
    queue.complete(one.lease(), "{}");

    queue.setLimits(QUEUE, ONE_PER_GROUP);
    enqueue("a");
    enqueue("a");
    enqueue("a");
    enqueue("b");
    assertThat(queue.waitingForLimits(QUEUE)).as("a2 and a3 behind a1").isEqualTo(2);
    assertThat(queue.claimBatch(QUEUE, "w2", LONG, 10)).hasSize(4);
    assertThat(queue.waitingForLimits(QUEUE)).as("a2 and a3 behind a1, running").isEqualTo(2);
    assertThat(queue.waitingForLimits("other")).isZero();
  }

  @Test
  void priorityAgingServesAnOlderLowPriorityJobFirst() {
    long low = queue.enqueue(QUEUE, "{}");
    pause(Duration.ofMillis(300));
    long high = queue.enqueue(QUEUE, "{}", JobOptions.ofPriority(1));
    long higher = queue.enqueue(QUEUE, "{}", JobOptions.ofPriority(JobOptions.MAX_PRIORITY));
    queue.setLimits(QUEUE, QueueLimits.NONE.withPriorityAging(Duration.ofMillis(150)));
    // as if ready: low at 0, high at 0.3 s - 0.15 s or later, higher at 0.3 s - 1.5 s or later
    // (the order holds while low and the others are 0.15 s to 1.5 s apart: a loaded machine's
    // pause of 0.3 s may last longer, and the first version's window, 0.1 s to 0.5 s, was missed)
    assertThat(queue.claim(QUEUE, "w1", LONG).orElseThrow().id()).isEqualTo(higher);
    assertThat(queue.claim(QUEUE, "w1", LONG).orElseThrow().id()).isEqualTo(low);
    assertThat(queue.claim(QUEUE, "w1", LONG).orElseThrow().id()).isEqualTo(high);
  }

  @Test
  void withoutAgingTheOrderIsStrict() {
    long low = queue.enqueue(QUEUE, "{}");
    pause(Duration.ofMillis(300));
    long high = queue.enqueue(QUEUE, "{}", JobOptions.ofPriority(1));
    // an aging left behind would serve low first: as if ready at 0 against 0.3 s - 0.1 s or later
    queue.setLimits(QUEUE, QueueLimits.NONE.withPriorityAging(Duration.ofMillis(100)));
    queue.setLimits(QUEUE, QueueLimits.NONE);
    assertThat(queue.claimBatch(QUEUE, "w1", LONG, 1)).extracting(Job::id).containsExactly(high);
    assertThat(queue.claimBatch(QUEUE, "w1", LONG, 1)).extracting(Job::id).containsExactly(low);
  }

  @Test
  void groupAndRateLimitsAreReadBack() {
    QueueLimits all =
        QueueLimits.maxRunning(7)
            .withRate(100, Duration.ofSeconds(1))
            .withMaxRunningPerGroup(2)
            .withRatePerGroup(10, Duration.ofMinutes(1))
            .withFifoPerGroup()
            .withPriorityAging(Duration.ofSeconds(30));
    queue.setLimits(QUEUE, all);
    assertThat(queue.limits(QUEUE)).isEqualTo(all);
    QueueLimits fewer =
        all.withoutRate().withoutRatePerGroup().withoutFifoPerGroup().withoutPriorityAging();
    assertThat(queue.setLimits(QUEUE, fewer)).isEqualTo(all);
    assertThat(queue.limits(QUEUE)).isEqualTo(fewer);
    assertThat(queue.setLimits(QUEUE, QueueLimits.NONE)).isEqualTo(fewer);
    assertThat(queue.limits(QUEUE)).isEqualTo(QueueLimits.NONE);
  }

  @Test
  void badGroupsAndRatesAreRefusedNamingTheParameter() {
    assertRefused(() -> JobOptions.inGroup(" "), "group", "' '");
    assertRefused(() -> JobOptions.inGroup("x".repeat(201)), "group", "201 characters");
    assertRefused(() -> QueueLimits.NONE.withRate(0, HOUR), "starts", "0");
    assertRefused(() -> QueueLimits.NONE.withRate(1, Duration.ZERO), "per", "PT0S");
    assertRefused(() -> QueueLimits.NONE.withRatePerGroup(1, Duration.ofDays(2)), "per", "PT48H");
    assertRefused(() -> QueueLimits.NONE.withMaxRunningPerGroup(0), "maxRunningPerGroup", "0");
    assertRefused(() -> QueueLimits.NONE.withPriorityAging(Duration.ZERO), "aging", "PT0S");
    assertThat(queue.limits(QUEUE)).isEqualTo(QueueLimits.NONE);
  }
}
