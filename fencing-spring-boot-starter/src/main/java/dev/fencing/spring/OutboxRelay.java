package dev.fencing.spring;

import dev.fencing.FencedOutbox;
import dev.fencing.FencedReceiver;
import dev.fencing.internal.Validate;
import java.util.Objects;

/**
 * A bean that relays the outbox messages of one destination, from the workers the starter runs:
 * each message at least once, with the epoch of the commit that wrote it, after the commit. One
 * bean per destination; two for one destination stop the context from starting.
 *
 * <pre>{@code
 * @Bean
 * OutboxRelay mail(PostgresFencing fencing) {   // to a receiver that keeps the newest epoch per key
 *   return OutboxRelay.to("mail", fencing.receiver("mail"));
 * }
 *
 * @Bean
 * OutboxRelay webhooks(WebhookClient client) {  // to a sender of the application's
 *   return OutboxRelay.to("webhooks", envelope -> client.post(envelope));
 * }
 * }</pre>
 *
 * @since 0.1
 */
public sealed interface OutboxRelay {

  /** The destination whose messages are relayed: a plain identifier. */
  String destination();

  /**
   * Relays {@code destination}'s messages to {@code receiver}, which refuses a message whose key it
   * has seen at a newer epoch.
   *
   * @throws IllegalArgumentException if {@code destination} is not a plain identifier
   * @throws NullPointerException if {@code receiver} is null
   */
  static OutboxRelay to(String destination, FencedReceiver receiver) {
    return new ToReceiver(destination, receiver);
  }

  /**
   * Relays {@code destination}'s messages to {@code sender}; a sender that throws leaves its
   * message undelivered, and it is sent again after a pause.
   *
   * @throws IllegalArgumentException if {@code destination} is not a plain identifier
   * @throws NullPointerException if {@code sender} is null
   */
  static OutboxRelay to(String destination, FencedOutbox.Sender sender) {
    return new ToSender(destination, sender);
  }

  /**
   * Messages of {@code destination} go to a receiver.
   *
   * @param destination a plain identifier
   * @param receiver where they go
   */
  record ToReceiver(String destination, FencedReceiver receiver) implements OutboxRelay {
    /**
     * @throws IllegalArgumentException if {@code destination} is not a plain identifier
     * @throws NullPointerException if {@code receiver} is null
     */
    public ToReceiver {
      Validate.identifier("destination", destination);
      Objects.requireNonNull(receiver, "receiver");
    }
  }

  /**
   * Messages of {@code destination} go to a sender.
   *
   * @param destination a plain identifier
   * @param sender where they go
   */
  record ToSender(String destination, FencedOutbox.Sender sender) implements OutboxRelay {
    /**
     * @throws IllegalArgumentException if {@code destination} is not a plain identifier
     * @throws NullPointerException if {@code sender} is null
     */
    public ToSender {
      Validate.identifier("destination", destination);
      Objects.requireNonNull(sender, "sender");
    }
  }
}
