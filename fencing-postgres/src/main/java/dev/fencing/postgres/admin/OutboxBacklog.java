package dev.fencing.postgres.admin;

import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * The outbox messages not yet delivered ({@link PostgresAdmin#outboxBacklog}).
 *
 * @param undelivered how many
 * @param oldestUndeliveredAt when the oldest of them was written, or null when there is none
 * @since 0.1
 */
public record OutboxBacklog(long undelivered, @Nullable Instant oldestUndeliveredAt) {}
