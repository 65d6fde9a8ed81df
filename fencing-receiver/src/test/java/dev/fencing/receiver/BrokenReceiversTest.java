package dev.fencing.receiver;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.testkit.contract.FencedReceiverContract;
import org.junit.jupiter.api.Test;

/**
 * Proves the contract's checks can fail: each broken receiver passes the checks it does not break
 * and fails the one for the guard it lacks.
 */
class BrokenReceiversTest {

  @Test
  void withoutTheEpochCheckAnOlderEpochIsNotRefused() {
    assertThatThrownBy(
            () -> FencedReceiverContract.checkOlderEpochIsRefused(new AlwaysAcceptReceiver()))
        .isInstanceOf(AssertionError.class);
  }

  @Test
  void withoutTheEpochCheckTheOtherChecksStillPass() {
    assertThatCode(
            () -> {
              FencedReceiverContract.checkFirstDeliveryIsAccepted(new AlwaysAcceptReceiver());
              FencedReceiverContract.checkNewerEpochSupersedes(new AlwaysAcceptReceiver());
              FencedReceiverContract.checkSameEpochIsRepeat(new AlwaysAcceptReceiver());
            })
        .doesNotThrowAnyException();
  }

  @Test
  void withAStrictCheckAWorkersRetryIsRefused() {
    assertThatThrownBy(
            () -> FencedReceiverContract.checkSameEpochIsRepeat(new StrictlyNewerReceiver()))
        .isInstanceOf(AssertionError.class);
  }

  @Test
  void withAStrictCheckTheOtherChecksStillPass() {
    assertThatCode(
            () -> {
              FencedReceiverContract.checkFirstDeliveryIsAccepted(new StrictlyNewerReceiver());
              FencedReceiverContract.checkNewerEpochSupersedes(new StrictlyNewerReceiver());
              FencedReceiverContract.checkOlderEpochIsRefused(new StrictlyNewerReceiver());
            })
        .doesNotThrowAnyException();
  }

  @Test
  void withoutTheFencesEpochCheckAFenceBelowTheHeldEpochLowersTheKey() {
    assertThatThrownBy(
            () ->
                FencedReceiverContract.checkFenceBelowTheHeldEpochIsSuperseded(
                    BrokenFenceReceiver.withoutTheEpochCheck()))
        .isInstanceOf(AssertionError.class);
  }

  @Test
  void aFenceThatRaisesNothingLetsAnOlderDeliveryThrough() {
    assertThatThrownBy(
            () ->
                FencedReceiverContract.checkFenceRefusesOlderDeliveries(
                    BrokenFenceReceiver.thatRaisesNothing()))
        .isInstanceOf(AssertionError.class);
    assertThatThrownBy(
            () ->
                FencedReceiverContract.checkFenceOfAnUnknownKeyHoldsNull(
                    BrokenFenceReceiver.thatRaisesNothing()))
        .isInstanceOf(AssertionError.class);
  }

  @Test
  void withoutTheFencesEpochCheckTheOtherFenceChecksStillPass() {
    assertThatCode(
            () -> {
              FencedReceiverContract.checkFenceRefusesOlderDeliveries(
                  BrokenFenceReceiver.withoutTheEpochCheck());
              FencedReceiverContract.checkFenceKeepsThePayload(
                  BrokenFenceReceiver.withoutTheEpochCheck());
              FencedReceiverContract.checkFenceOfAnUnknownKeyHoldsNull(
                  BrokenFenceReceiver.withoutTheEpochCheck());
              FencedReceiverContract.checkFenceAtTheSameEpochIsARepeat(
                  BrokenFenceReceiver.withoutTheEpochCheck());
            })
        .doesNotThrowAnyException();
  }
}
