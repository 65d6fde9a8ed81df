package dev.fencing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.internal.Batches;
import dev.fencing.internal.Validate;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Outbox messages, completions with messages, and the relay's default for a receiver. */
class OutboxValuesTest {

  private static final Lease LEASE = new Lease(7, "w", Epoch.of(3), Instant.EPOCH);

  @Test
  void aMessageKeepsWhatItWasGiven() {
    OutboxMessage m = new OutboxMessage("mail_out", "user-1", "{\"to\": 1}");
    assertThat(m.destination()).isEqualTo("mail_out");
    assertThat(m.key()).isEqualTo("user-1");
    assertThat(m.payload()).isEqualTo("{\"to\": 1}");
  }

  @Test
  void aMessageRefusesABadDestinationKeyOrPayloadNamingIt() {
    assertThatThrownBy(() -> new OutboxMessage(null, "k", "{}"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("destination must be a plain identifier")
        .hasMessageEndingWith("but was null");
    assertThatThrownBy(() -> new OutboxMessage("Mail-Out", "k", "{}"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageEndingWith("but was 'Mail-Out'");
    assertThatThrownBy(() -> new OutboxMessage("mail", " ", "{}"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("key must be");
    assertThatThrownBy(() -> new OutboxMessage("mail", "k", null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("payload must be JSON, but was null");
  }

  @Test
  void aListOfMessagesIsBoundedAndHasNoNulls() {
    OutboxMessage m = new OutboxMessage("mail", "k", "{}");
    List<OutboxMessage> full = Collections.nCopies(Validate.MAX_MESSAGES, m);
    assertThat(Batches.messages("messages", full)).isSameAs(full);
    List<OutboxMessage> tooMany = new ArrayList<>(full);
    tooMany.add(m);
    assertThatThrownBy(() -> Batches.messages("messages", tooMany))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("messages must hold at most 100 messages, but held 101");
    List<OutboxMessage> withNull = new ArrayList<>(List.of(m, m));
    withNull.add(null);
    assertThatThrownBy(() -> Batches.messages("m", withNull))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("m[2] must not be null");
    assertThatThrownBy(() -> Batches.messages("m", null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("m must be a list, but was null");
  }

  @Test
  void relayMaxIsBetweenOneAndTheLimit() {
    assertThat(Batches.relayMax(1)).isEqualTo(1);
    assertThat(Batches.relayMax(FencedOutbox.MAX_RELAY)).isEqualTo(FencedOutbox.MAX_RELAY);
    assertThatThrownBy(() -> Batches.relayMax(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("max must be between 1 and 10000, but was 0");
    assertThatThrownBy(() -> Batches.relayMax(FencedOutbox.MAX_RELAY + 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("max must be between 1 and 10000, but was 10001");
  }

  @Test
  void aCompletionCopiesItsMessagesAndDefaultsToNone() {
    OutboxMessage m = new OutboxMessage("mail", "k", "{}");
    List<OutboxMessage> given = new ArrayList<>(List.of(m));
    FencedQueue.Completion c = new FencedQueue.Completion(LEASE, "{}", given);
    given.clear();
    assertThat(c.messages()).containsExactly(m);
    assertThat(new FencedQueue.Completion(LEASE, "{}").messages()).isEmpty();
    assertThatThrownBy(() -> new FencedQueue.Completion(LEASE, "{}", null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("messages must be a list, but was null");
  }

  @Test
  void theIdempotencyKeyIsTheJobAndThePosition() {
    FencedOutbox.Envelope e = new FencedOutbox.Envelope(42, 3, Epoch.of(9), "mail", "k", "{}");
    assertThat(e.idempotencyKey()).isEqualTo("42:3");
  }

  @Test
  void relayingToAReceiverDeliversAtTheKeyAndTheEpochOfTheCommit() {
    List<String> delivered = new ArrayList<>();
    FencedReceiver receiver =
        new FencedReceiver() {
          @Override
          public dev.fencing.FencedOutcome fence(String key, dev.fencing.Epoch epoch) {
            throw new UnsupportedOperationException("this test double does not fence");
          }

          @Override
          public FencedOutcome deliver(String key, Epoch epoch, String payload) {
            delivered.add(key + "@" + epoch.value() + " " + payload);
            return new FencedOutcome.Accepted(key, epoch, false);
          }

          @Override
          public Optional<Receipt> newest(String key) {
            return Optional.empty();
          }
        };
    FencedOutbox.Envelope e = new FencedOutbox.Envelope(42, 0, Epoch.of(9), "mail", "k", "{}");
    FencedOutbox outbox =
        (destination, sender, max) -> List.of(new FencedOutbox.Relayed(e, sender.send(e)));
    assertThat(outbox.relay("mail", receiver, 5))
        .containsExactly(
            new FencedOutbox.Relayed(e, new FencedOutcome.Accepted("k", Epoch.of(9), false)));
    assertThat(delivered).containsExactly("k@9 {}");
    assertThatThrownBy(() -> outbox.relay("mail", (FencedReceiver) null, 5))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("receiver");
  }
}
