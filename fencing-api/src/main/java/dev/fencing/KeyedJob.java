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
 * @param options when the job may first be claimed and its priority; used only when the job is
 *     created: a key already taken keeps its job as it was enqueued first
 * @since 0.1
 */
public record KeyedJob(String key, String payload, JobOptions options) {

  /**
   * @throws IllegalArgumentException naming the first bad parameter and its value
   */
  public KeyedJob {
    Validate.idempotencyKey("key", key);
    Validate.json("payload", payload);
    if (options == null) {
      throw new IllegalArgumentException("options must not be null; use JobOptions.DEFAULT");
    }
  }

  /** A keyed job claimable at once, at priority 0. */
  public KeyedJob(String key, String payload) {
    this(key, payload, JobOptions.DEFAULT);
  }
}
