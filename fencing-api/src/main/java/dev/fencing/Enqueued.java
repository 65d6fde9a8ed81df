package dev.fencing;

import dev.fencing.internal.Validate;

/**
 * What a keyed enqueue found or made for one {@link KeyedJob}.
 *
 * @param id the job's id: the new job's, or the one that already had the key
 * @param key the job's idempotency key
 * @param created whether this call wrote the job (also when its first try landed and only the
 *     acknowledgement was lost); false when the key was already taken, by an earlier call or by
 *     another producer, with an equal payload
 * @since 0.1
 */
public record Enqueued(long id, String key, boolean created) {

  /**
   * @throws IllegalArgumentException naming the first bad parameter and its value
   */
  public Enqueued {
    Validate.jobId(id);
    Validate.idempotencyKey("key", key);
  }
}
