package dev.fencing;

import dev.fencing.internal.Validate;

/**
 * A message a worker commits together with its job's result (see {@link FencedQueue#complete(Lease,
 * String, java.util.List)}): written in the same transaction as the compare-and-set on owner and
 * epoch, so a fenced-off worker's messages are never written, and sent afterwards, at least once,
 * by a {@link FencedOutbox} relay at the epoch of the commit.
 *
 * @param destination which receiver takes it: a plain identifier ({@code [a-z_][a-z0-9_]{0,62}})
 * @param key the receiver's key: not blank, at most 500 characters, well-formed text
 * @param payload JSON, judged by the store when the commit writes it
 * @since 0.1
 */
public record OutboxMessage(String destination, String key, String payload) {

  /**
   * @throws IllegalArgumentException naming the first bad parameter and its value
   */
  public OutboxMessage {
    Validate.identifier("destination", destination);
    Validate.key(key);
    Validate.json("payload", payload);
  }
}
