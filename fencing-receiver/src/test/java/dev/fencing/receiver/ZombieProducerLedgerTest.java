package dev.fencing.receiver;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.Epoch;
import dev.fencing.FencedOutcome;
import dev.fencing.FencedReceiver;
import org.junit.jupiter.api.Test;

/**
 * A producer that paused while owning an account wakes after another took over and resends its
 * debit: the ledger must debit the account once.
 */
class ZombieProducerLedgerTest {

  @Test
  void inMemory() {
    assertThat(zombieScenario(Receivers.inMemory())).isEqualTo(900);
  }

  @Test
  void withoutFencingTheZombieDebitsTwice() {
    assertThat(zombieScenario(new AlwaysAcceptReceiver())).isEqualTo(800);
  }

  /** Plays the scenario and returns the balance it leaves, asserting only what fencing promises. */
  private static long zombieScenario(FencedReceiver receiver) {
    Ledger ledger = new Ledger(receiver);
    ledger.open("acc-1", 1_000);
    Epoch producerA = Epoch.FIRST; // A owns acc-1, is about to send debit tx-7, and pauses.
    Epoch producerB = producerA.next(); // A's ownership expires; B takes acc-1 over.

    FencedOutcome byB = ledger.debit("acc-1", producerB, "tx-7", 100);
    FencedOutcome retryByB = ledger.debit("acc-1", producerB, "tx-7", 100);
    FencedOutcome byZombieA = ledger.debit("acc-1", producerA, "tx-7", 100);

    assertThat(byB).isEqualTo(new FencedOutcome.Accepted("acc-1", producerB, false));
    assertThat(retryByB).isEqualTo(new FencedOutcome.Accepted("acc-1", producerB, true));
    if (receiver instanceof AlwaysAcceptReceiver) {
      assertThat(byZombieA.isAccepted()).isTrue();
    } else {
      assertThat(byZombieA)
          .isEqualTo(new FencedOutcome.Superseded("acc-1", producerA, producerB, null));
    }
    return ledger.balance("acc-1");
  }
}
