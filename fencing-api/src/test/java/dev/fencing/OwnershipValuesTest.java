package dev.fencing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.internal.Validate;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Resource names, ownerships and what acquire and renew return. */
class OwnershipValuesTest {

  private static final Ownership OWNED =
      new Ownership("account-7", "producer-1", Epoch.of(9), Instant.EPOCH);

  @Test
  void resourceNamesAreKeptAsTheyAre() {
    for (String name :
        List.of("a", "account-7", "orders:partition.3", "_x", "7a", "...", "A".repeat(200))) {
      assertThat(Validate.resource(name)).isSameAs(name);
    }
  }

  @Test
  void resourceNamesThatAJobKeyOrAStoreWouldClashWithAreRefusedByName() {
    List<String> bad = new ArrayList<>();
    bad.add(null);
    bad.addAll(
        List.of("", " ", "42", "0", ".", "..", "a/b", "a b", "konto-ä", "a\0b", "A".repeat(201)));
    for (String name : bad) {
      assertThatThrownBy(() -> Validate.resource(name))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("resource must be 1 to 200 of A-Z a-z 0-9 . _ : -")
          .hasMessageEndingWith("but was " + (name == null ? "null" : Validate.quote(name)));
    }
  }

  @Test
  void anOwnershipIsKnownAtAReceiverByItsResourceName() {
    assertThat(OWNED.key()).isEqualTo("account-7");
    assertThatThrownBy(() -> new Ownership("42", "p", Epoch.FIRST, Instant.EPOCH))
        .hasMessageContaining("resource must be");
    assertThatThrownBy(() -> new Ownership("a", " ", Epoch.FIRST, Instant.EPOCH))
        .hasMessageContaining("owner must be");
    assertThatThrownBy(() -> new Ownership("a", "p", null, Instant.EPOCH)).hasMessage("epoch");
    assertThatThrownBy(() -> new Ownership("a", "p", Epoch.FIRST, null)).hasMessage("expiresAt");
  }

  @Test
  void acquisitionsNameTheirResource() {
    assertThat(new Acquisition.Acquired(OWNED).resource()).isEqualTo("account-7");
    Acquisition.Held held = new Acquisition.Held("account-7", "producer-2", Epoch.of(3), null);
    assertThat(held.resource()).isEqualTo("account-7");
    assertThatThrownBy(() -> new Acquisition.Acquired(null)).hasMessage("ownership");
    assertThatThrownBy(() -> new Acquisition.Held(null, "p", Epoch.FIRST, null))
        .hasMessage("resource");
    assertThatThrownBy(() -> new Acquisition.Held("a", null, Epoch.FIRST, null))
        .hasMessage("owner");
    assertThatThrownBy(() -> new Acquisition.Held("a", "p", null, null)).hasMessage("epoch");
  }

  @Test
  void aRenewalSaysWhetherTheOwnershipHolds() {
    assertThat(new OwnershipRenewal.Renewed(OWNED).isRenewed()).isTrue();
    OwnershipRenewal lost =
        new OwnershipRenewal.Lost(OWNED, OwnershipRenewal.Why.SUPERSEDED, Epoch.of(10), "newer");
    assertThat(lost.isRenewed()).isFalse();
    assertThat(lost.ownership()).isSameAs(OWNED);
    assertThatThrownBy(() -> new OwnershipRenewal.Renewed(null)).hasMessage("ownership");
    assertThatThrownBy(() -> new OwnershipRenewal.Lost(null, OwnershipRenewal.Why.ENDED, null, ""))
        .hasMessage("ownership");
    assertThatThrownBy(() -> new OwnershipRenewal.Lost(OWNED, null, null, "")).hasMessage("why");
    assertThatThrownBy(
            () -> new OwnershipRenewal.Lost(OWNED, OwnershipRenewal.Why.ENDED, null, null))
        .hasMessage("detail");
  }

  @Test
  void aReceiverTakesTheKeyAndEpochFromTheTokensSource() {
    List<String> calls = new ArrayList<>();
    FencedReceiver receiver =
        new FencedReceiver() {
          @Override
          public dev.fencing.FencedOutcome fence(String key, dev.fencing.Epoch epoch) {
            throw new UnsupportedOperationException("this test double does not fence");
          }

          @Override
          public FencedOutcome deliver(String key, Epoch epoch, String payload) {
            calls.add(key + "@" + epoch.value() + ":" + payload);
            return new FencedOutcome.Accepted(key, epoch, false);
          }

          @Override
          public Optional<Receipt> newest(String key) {
            return Optional.empty();
          }
        };
    assertThat(receiver.deliver(OWNED, "{}").key()).isEqualTo("account-7");
    assertThat(receiver.deliver(new Lease(42, "w", Epoch.of(3), Instant.EPOCH), "[]").key())
        .isEqualTo("42");
    assertThat(calls).containsExactly("account-7@9:{}", "42@3:[]");
  }

  @Test
  void aCoordinationFailureKeepsItsMessageAndCause() {
    IllegalStateException cause = new IllegalStateException("refused");
    assertThat(new CoordinationException("etcd down", cause))
        .hasMessage("etcd down")
        .hasCause(cause);
    assertThat(new CoordinationException("zk down")).hasMessage("zk down").hasNoCause();
  }
}
