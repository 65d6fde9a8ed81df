package dev.fencing.receiver;

import dev.fencing.Epoch;
import dev.fencing.FencedOutcome;
import dev.fencing.FencedReceiver;
import java.util.HashMap;
import java.util.Map;

/**
 * A toy ledger whose debits arrive through a fenced receiver keyed by account: each producer sends
 * one debit per account and epoch, a repeat is a retry of it, and a superseded one is dropped.
 */
final class Ledger {

  private final FencedReceiver receiver;
  private final Map<String, Long> balances = new HashMap<>();

  Ledger(FencedReceiver receiver) {
    this.receiver = receiver;
  }

  void open(String account, long balance) {
    balances.put(account, balance);
  }

  long balance(String account) {
    return balances.get(account);
  }

  /** Debits {@code amount} from {@code account} if {@code epoch} still owns it and this is new. */
  FencedOutcome debit(String account, Epoch epoch, String debitId, long amount) {
    String payload = "{\"debit\": \"" + debitId + "\", \"amount\": " + amount + "}";
    FencedOutcome outcome = receiver.deliver(account, epoch, payload);
    if (outcome instanceof FencedOutcome.Accepted accepted && !accepted.repeat()) {
      balances.merge(account, -amount, Long::sum);
    }
    return outcome;
  }
}
