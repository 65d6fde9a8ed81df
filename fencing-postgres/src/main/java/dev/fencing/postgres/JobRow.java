package dev.fencing.postgres;

import dev.fencing.JobState;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

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
