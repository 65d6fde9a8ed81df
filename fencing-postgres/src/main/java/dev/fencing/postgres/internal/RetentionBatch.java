package dev.fencing.postgres.internal;

/**
 * What one batch of retention removed (see {@link Retention}).
 *
 * @param jobs jobs removed (archived ones included)
 * @param archived jobs copied to the archive first
 * @param messages delivered outbox messages removed with them
 */
public record RetentionBatch(int jobs, int archived, int messages) {}
