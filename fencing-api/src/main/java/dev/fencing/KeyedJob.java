package dev.fencing;

import dev.fencing.internal.Validate;

/**
 * A job to enqueue under an idempotency key (see {@link FencedQueue#enqueue(String, KeyedJob)}):
 * the key names the job within its queue, so enqueueing it again, after a lost acknowledgement or a
 * producer's crash, finds the job instead of adding a second one.
 *
 * @param key the job's name within its queue: not blank, at most {@value
 *     Validate#MAX_IDEMPOTENCY_KEY_LENGTH} characters, well-formed text; compared exactly (case and
 *     spaces count)
 * @param payload the job's input, JSON, judged by the store
 */
public record KeyedJob(String key, String payload) {

  /**
   * @throws IllegalArgumentException naming the first bad parameter and its value
   */
  public KeyedJob {
    Validate.idempotencyKey("key", key);
    Validate.json("payload", payload);
  }
}
