package dev.fencing.postgres.admin;

import org.jspecify.annotations.Nullable;

/**
 * What a job was enqueued with besides its payload ({@link PostgresAdmin#options}).
 *
 * @param priority its priority, 0 by default
 * @param group the group it was enqueued in, or null
 * @param key the idempotency key it was enqueued under, or null
 * @since 0.1
 */
public record JobOptionsView(int priority, @Nullable String group, @Nullable String key) {}
