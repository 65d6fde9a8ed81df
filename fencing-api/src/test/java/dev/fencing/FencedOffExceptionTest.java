package dev.fencing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import org.junit.jupiter.api.Test;

class FencedOffExceptionTest {

  private static final Instant EXPIRED = Instant.parse("2024-01-02T03:04:05Z");

  @Test
  void aSupersededRefusalWithoutAnOwnerNamesOnlyTheEpochThatWon() {
    FencedOffException e =
        new FencedOffException(new FencedOutcome.Superseded("k", Epoch.of(3), Epoch.of(4), null));
    assertThat(e.getMessage())
        .isEqualTo("fenced off: k at epoch 3: a newer claim owns it (epoch 4)");
    assertThat(e.key()).isEqualTo("k");
    assertThat(e.triedEpoch()).isEqualTo(Epoch.of(3));
    assertThat(e.currentEpoch()).contains(Epoch.of(4));
  }

  @Test
  void anExpiredLeaseSaysWhenItRanOutAndKeepsItsOwnEpoch() {
    FencedOutcome.LeaseExpired expired = new FencedOutcome.LeaseExpired("9", Epoch.of(2), EXPIRED);
    FencedOffException e = new FencedOffException(expired);
    assertThat(e.getMessage())
        .isEqualTo(
            "fenced off: 9 at epoch 2: the lease expired at 2024-01-02T03:04:05Z and nobody has"
                + " reclaimed it yet");
    assertThat(e.refusal()).isSameAs(expired);
    assertThat(e.key()).isEqualTo("9");
    assertThat(e.triedEpoch()).isEqualTo(Epoch.of(2));
    assertThat(e.currentEpoch()).contains(Epoch.of(2));
  }

  @Test
  void aForgedLeaseNamesItsOwnerAndTheJobsOwnerOrNone() {
    FencedOffException owned =
        new FencedOffException(
            new FencedOutcome.NotOwner("5", Epoch.of(2), "intruder", Epoch.of(2), "w1"));
    assertThat(owned.getMessage())
        .isEqualTo(
            "fenced off: 5 at epoch 2: owner 'intruder' never held it at that epoch (now epoch 2,"
                + " owner 'w1')");
    assertThat(owned.currentEpoch()).contains(Epoch.of(2));

    FencedOffException neverClaimed =
        new FencedOffException(new FencedOutcome.NotOwner("5", Epoch.of(2), "w1", null, null));
    assertThat(neverClaimed.getMessage())
        .isEqualTo(
            "fenced off: 5 at epoch 2: owner 'w1' never held it at that epoch (now null, owner"
                + " none)");
    assertThat(neverClaimed.currentEpoch()).isEmpty();
  }

  @Test
  void aLeaseThatAlreadyFinishedTheJobSaysInWhichState() {
    FencedOffException e =
        new FencedOffException(
            new FencedOutcome.AlreadyFinished("6", Epoch.of(1), JobState.COMPLETED));
    assertThat(e.getMessage())
        .isEqualTo(
            "fenced off: 6 at epoch 1: this lease already finished it differently (now COMPLETED)");
    assertThat(e.currentEpoch()).contains(Epoch.FIRST);
  }

  @Test
  void aRefusedOutcomeIsNotAcceptedAndRequireAcceptedThrowsIt() {
    FencedOutcome.Superseded refused =
        new FencedOutcome.Superseded("k", Epoch.FIRST, Epoch.of(2), "w2");
    assertThat(refused.isAccepted()).isFalse();
    assertThatThrownBy(() -> FencedOffException.requireAccepted(refused))
        .isInstanceOfSatisfying(
            FencedOffException.class, e -> assertThat(e.refusal()).isSameAs(refused));
    FencedOutcome.Accepted accepted = new FencedOutcome.Accepted("k", Epoch.FIRST, true);
    assertThat(FencedOffException.requireAccepted(accepted)).isSameAs(accepted);
    assertThatThrownBy(() -> FencedOffException.requireAccepted(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("outcome");
  }

  @Test
  void aMissingRefusalIsANullPointerNamingIt() {
    assertThatThrownBy(() -> new FencedOffException(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("refusal");
  }
}
