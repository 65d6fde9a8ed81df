package dev.fencing.postgres.admin;

import dev.fencing.JobState;
import dev.fencing.internal.Validate;
import org.jspecify.annotations.Nullable;

/**
 * What {@link PostgresAdmin#jobs} looks for: every filter that is not null must match, newest job
 * first, one page at a time.
 *
 * @param queue only this queue, or any when null
 * @param state only jobs in this state, or any when null
 * @param key only the job enqueued under this idempotency key, or any when null
 * @param afterId only jobs with a smaller id (the previous page's {@link JobPage#nextAfterId}), or
 *     from the newest when null
 * @param limit the most jobs a page holds, 1 to {@value #MAX_LIMIT}
 * @since 0.1
 */
public record JobSearch(
    @Nullable String queue,
    @Nullable JobState state,
    @Nullable String key,
    @Nullable Long afterId,
    int limit) {

  /** The most jobs one page holds. */
  public static final int MAX_LIMIT = 500;

  /**
   * @throws IllegalArgumentException naming the parameter and its value if {@code queue} is not a
   *     plain identifier, {@code key} is blank, too long or not well-formed text, {@code afterId}
   *     is not positive or {@code limit} is not between 1 and {@value #MAX_LIMIT}
   */
  public JobSearch {
    if (queue != null) {
      Validate.identifier("queue", queue);
    }
    if (key != null) {
      Validate.idempotencyKey("key", key);
    }
    if (afterId != null && afterId < 1) {
      throw new IllegalArgumentException("afterId must be at least 1, but was " + afterId);
    }
    Validate.between("limit", limit, 1, MAX_LIMIT);
  }

  /**
   * Every job, newest first, {@code limit} a page.
   *
   * @throws IllegalArgumentException if {@code limit} is not between 1 and {@value #MAX_LIMIT}
   */
  public static JobSearch all(int limit) {
    return new JobSearch(null, null, null, null, limit);
  }

  /** This search in {@code queue} only (or any queue when null). */
  public JobSearch withQueue(@Nullable String queue) {
    return new JobSearch(queue, state, key, afterId, limit);
  }

  /** This search for jobs in {@code state} only (or any state when null). */
  public JobSearch withState(@Nullable JobState state) {
    return new JobSearch(queue, state, key, afterId, limit);
  }

  /** This search for the job under idempotency key {@code key} (or any when null). */
  public JobSearch withKey(@Nullable String key) {
    return new JobSearch(queue, state, key, afterId, limit);
  }

  /** This search's page after {@code afterId} (or the first page when null). */
  public JobSearch withAfterId(@Nullable Long afterId) {
    return new JobSearch(queue, state, key, afterId, limit);
  }

  /** This search, {@code limit} jobs a page. */
  public JobSearch withLimit(int limit) {
    return new JobSearch(queue, state, key, afterId, limit);
  }
}
