package dev.fencing;

import java.util.Optional;

/**
 * An external system that takes fenced calls. It keeps the newest epoch per key (a job id, an
 * account, a partition): a newer epoch is accepted and supersedes, the same epoch again is accepted
 * (a worker may retry its own call), and an older one is refused with the epoch that won.
 */
public interface FencedReceiver {

  /**
   * Delivers {@code payload} for {@code key} at {@code epoch}.
   *
   * @param key not blank, at most 500 characters
   * @param payload JSON
   * @return {@link FencedOutcome.Accepted}, or {@link FencedOutcome.Superseded} naming the newer
   *     epoch that won; a refused payload is dropped
   */
  FencedOutcome deliver(String key, Epoch epoch, String payload);

  /** Returns the newest accepted delivery for {@code key}, or empty if none. */
  Optional<Receipt> newest(String key);

  /**
   * The newest delivery a receiver accepted for a key.
   *
   * @param payload the payload of that delivery, JSON
   */
  record Receipt(String key, Epoch epoch, String payload) {}
}
