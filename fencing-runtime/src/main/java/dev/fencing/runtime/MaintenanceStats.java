package dev.fencing.runtime;

/**
 * What the runtime's maintenance did since start (all zero without {@link Builder#maintenance}).
 *
 * @param rounds rounds that ran to the end
 * @param jobsRemoved finished jobs removed, archived ones included
 * @param jobsArchived of those, jobs archived first
 * @param messagesRemoved delivered outbox messages removed with their jobs
 * @param failures rounds that failed (each logged, then retried after a pause)
 * @since 0.1
 */
public record MaintenanceStats(
    long rounds, long jobsRemoved, long jobsArchived, long messagesRemoved, long failures) {}
