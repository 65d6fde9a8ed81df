package dev.fencing.postgres.admin;

import dev.fencing.JobState;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * The row of a list of jobs ({@link PostgresAdmin#jobs}): one job's state and where it stands, with
 * its key, priority and group, without its payload and result. The page of one job is {@link
 * JobDetails} ({@link PostgresAdmin#job}), which has them.
 *
 * @param id the job's id
 * @param queue its queue
 * @param state where it stands
 * @param key the idempotency key it was enqueued under, or null
 * @param epoch its newest epoch, 0 if never claimed
 * @param owner the worker that holds (or last held) it, or null
 * @param attempts claims counted so far
 * @param runAt when it is (or was) due
 * @param finishedAt when it ended, or null if it has not
 * @param lastError the error its last failure left, or null
 * @param priority its priority, 0 by default
 * @param group the group it was enqueued in, or null
 * @since 0.1
 */
public record JobRow(
    long id,
    String queue,
    JobState state,
    @Nullable String key,
    long epoch,
    @Nullable String owner,
    int attempts,
    Instant runAt,
    @Nullable Instant finishedAt,
    @Nullable String lastError,
    int priority,
    @Nullable String group) {}
