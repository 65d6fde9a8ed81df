package dev.fencing.postgres;

import dev.fencing.JobState;
import org.jspecify.annotations.Nullable;

public record JobSearch(
    @Nullable String queue,
    @Nullable JobState state,
    @Nullable String key,
    @Nullable Long afterId,
    int limit) {}
