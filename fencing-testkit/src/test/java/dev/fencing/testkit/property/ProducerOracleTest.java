package dev.fencing.testkit.property;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The producer oracle flags each invariant from planted replies, and lets the truth pass. */
class ProducerOracleTest {

  private static final Step.ProducerAction LONG = new Step.Acquire(0, 0, false);
  private static final Step.ProducerAction SHORT = new Step.Acquire(0, 0, true);
  private static final Step.ProducerAction RENEW = new Step.Extend(0, 0, false);
  private static final Step.ProducerAction SEND = new Step.Send(0, 0);
  private static final Step.ProducerAction RELEASE = new Step.Release(0, 0);

  private final ProducerOracle oracle = new ProducerOracle(Duration.ofMinutes(2));

  @Test
  void anHonestTakeoverKeepsEveryInvariant() {
    oracle.judge(0, 0, SHORT, "acquired r 5");
    oracle.judge(1, 0, SEND, "accepted r 5");
    oracle.judge(2, 1, LONG, "acquired r 9");
    oracle.judge(3, 1, SEND, "accepted r 9");
    oracle.judge(4, 0, SEND, "refused r 5 by 9");
    oracle.judge(5, 0, RENEW, "lost r 5 SUPERSEDED");
    oracle.judge(6, 0, RELEASE, "superseded r 5 by 9");
    oracle.judge(7, 1, RELEASE, "released r 9");
    oracle.judge(8, 1, RELEASE, "released r 9 repeat");
    oracle.judge(9, 2, LONG, "acquired r 12");
    assertThat(oracle.violations()).isEmpty();
  }

  @Test
  void anEpochHandedOutTwiceOrGoingDownIsFlagged() {
    oracle.judge(0, 0, SHORT, "acquired r 5");
    oracle.judge(1, 1, SHORT, "acquired r 5");
    oracle.judge(2, 1, SHORT, "acquired r 4");
    assertThat(oracle.violations())
        .extracting(ProducerOracle.Violation::invariant)
        .containsExactly(
            OwnershipInvariant.EPOCHS_ONLY_GO_UP, OwnershipInvariant.EPOCHS_ONLY_GO_UP);
  }

  @Test
  void anAcquisitionWhileALiveOwnerHoldsALongLeaseIsFlaggedUnlessItWasStalled() {
    oracle.judge(0, 0, LONG, "acquired r 5");
    oracle.judge(1, 1, LONG, "acquired r 6");
    assertThat(oracle.violations())
        .extracting(ProducerOracle.Violation::invariant)
        .containsExactly(OwnershipInvariant.ONE_OWNER_AT_A_TIME);
    oracle.disturbed(1);
    oracle.judge(2, 2, LONG, "acquired r 7");
    assertThat(oracle.violations()).hasSize(1);
  }

  @Test
  void anOlderOwnerThatRenewsOrReleasesIsFlagged() {
    oracle.judge(0, 0, SHORT, "acquired r 5");
    oracle.judge(1, 1, SHORT, "acquired r 6");
    oracle.judge(2, 0, RENEW, "renewed r 5");
    oracle.judge(3, 0, RELEASE, "released r 5");
    assertThat(oracle.violations())
        .extracting(ProducerOracle.Violation::invariant)
        .containsExactly(
            OwnershipInvariant.ONLY_THE_NEWEST_OWNER_RENEWS_OR_RELEASES,
            OwnershipInvariant.ONLY_THE_NEWEST_OWNER_RENEWS_OR_RELEASES);
  }

  @Test
  void aReceiverThatAcceptsAnOlderEpochIsFlagged() {
    oracle.judge(0, 1, SEND, "accepted r 6");
    oracle.judge(1, 0, SEND, "accepted r 5");
    assertThat(oracle.violations())
        .extracting(ProducerOracle.Violation::invariant)
        .containsExactly(OwnershipInvariant.RECEIVER_KEEPS_NEWEST);
  }

  @Test
  void drawnInterleavingsFitTheirBoundsAndReplayFromTheSeed() {
    ProducerInterleavings interleavings = new ProducerInterleavings(20);
    List<ProducerInterleaving> drawn = interleavings.sample(7, 50);
    assertThat(drawn)
        .isEqualTo(interleavings.sample(7, 50))
        .isNotEqualTo(interleavings.sample(8, 50));
    for (ProducerInterleaving interleaving : drawn) {
      assertThat(interleaving.steps()).hasSizeBetween(1, 20);
      assertThat(interleaving.producers()).isBetween(2, 4);
      assertThat(interleaving.steps()).noneMatch(s -> s instanceof Step.WorkerAction);
    }
    assertThat(ProducerInterleaving.ownerName(0)).isEqualTo(ProducerInterleaving.ownerName(1));
    assertThat(List.of(ProducerInterleaving.ownerName(2), ProducerInterleaving.ownerName(3)))
        .doesNotContain("twin");
  }
}
