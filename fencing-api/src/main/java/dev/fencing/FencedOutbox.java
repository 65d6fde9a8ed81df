package dev.fencing;

import java.util.List;
import java.util.Objects;

/**
 * The relay of an outbox: sends the messages that commits wrote (see {@link OutboxMessage}), each
 * at least once, and records each delivery with its outcome. A relay that dies between sending a
 * message and recording it leaves the message unsent in the store, so the next relay sends it again
 * with the same job, epoch and idempotency key; a receiver that keeps the newest epoch per key
 * takes that resend as a repeat.
 *
 * <p>The relay has no thread of its own: call {@link #relay} from your scheduler.
 *
 * @since 0.1
 */
public interface FencedOutbox {

  /** The most messages one call to {@link #relay} sends. */
  int MAX_RELAY = 10_000;

  /**
   * Sends up to {@code max} undelivered messages for {@code destination}, oldest first, one at a
   * time through {@code sender}, and records each outcome. Two relays never send one message at the
   * same time; a message whose sender throws stays undelivered (and the exception propagates).
   *
   * @param destination a plain identifier ({@code [a-z_][a-z0-9_]{0,62}})
   * @param max between 1 and {@value #MAX_RELAY}
   * @return what was sent and what the receiver said, in the order sent; empty when nothing waits
   * @throws IllegalArgumentException naming a bad parameter; nothing is sent
   * @throws StoreUnavailableException if the store could not be reached or refused; the messages
   *     recorded before stay recorded, and one sent but not recorded is sent again by a later relay
   *     (at least once)
   */
  List<Relayed> relay(String destination, Sender sender, int max);

  /**
   * Sends as {@link #relay(String, Sender, int)} does, to a receiver that keeps the newest epoch
   * per key: each message is delivered at its key and the epoch of the commit that wrote it.
   *
   * @throws IllegalArgumentException as {@link #relay(String, Sender, int)}
   * @throws StoreUnavailableException as {@link #relay(String, Sender, int)}, from the outbox's
   *     store or the receiver's
   */
  default List<Relayed> relay(String destination, FencedReceiver receiver, int max) {
    Objects.requireNonNull(receiver, "receiver");
    return relay(destination, m -> receiver.deliver(m.key(), m.epoch(), m.payload()), max);
  }

  /** Sends one message; its outcome is recorded. */
  @FunctionalInterface
  interface Sender {
    /**
     * Sends {@code envelope}; may be called again for the same envelope after a crash.
     *
     * @return what the receiver said
     */
    FencedOutcome send(Envelope envelope);
  }

  /**
   * A message as the relay sends it.
   *
   * @param jobId the job whose commit wrote it
   * @param index its position in that commit's messages, from 0
   * @param epoch the epoch of that commit: the lease that won
   */
  record Envelope(
      long jobId, int index, Epoch epoch, String destination, String key, String payload) {

    /**
     * Returns the key a receiver that ignores epochs deduplicates on: {@code jobId:index}. It is
     * the same on every resend, and no other message has it, since a job commits only once.
     */
    public String idempotencyKey() {
      return jobId + ":" + index;
    }
  }

  /** A message sent, and what the receiver said. */
  record Relayed(Envelope envelope, FencedOutcome outcome) {}
}
