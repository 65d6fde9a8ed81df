package dev.fencing;

import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * A job's row as it was when read; for inspection, never for deciding ownership (use a commit).
 *
 * @param epoch the job's current epoch, 0 if it was never claimed
 */
public record JobSnapshot(
    long id,
    String queue,
    JobState state,
    @Nullable String owner,
    long epoch,
    int attempts,
    int maxAttempts,
    String payload,
    @Nullable String result,
    @Nullable String lastError,
    Instant runAt,
    @Nullable Instant leaseExpiresAt) {}
