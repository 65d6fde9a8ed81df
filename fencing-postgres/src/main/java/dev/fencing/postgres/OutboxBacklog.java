package dev.fencing.postgres;

import java.time.Instant;
import org.jspecify.annotations.Nullable;

public record OutboxBacklog(long undelivered, @Nullable Instant oldestUndeliveredAt) {}
