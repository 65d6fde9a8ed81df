package dev.fencing.runtime;

/**
 * What the runtime's relay did since start (all zero without {@link Builder#relay}).
 *
 * @param rounds rounds over every destination, failed ones included
 * @param sent messages sent and recorded, refused ones included
 * @param refused of those, messages the receiver refused (a newer epoch had reached it)
 * @param failures calls that failed (each logged; the message stays undelivered and is sent again)
 * @since 0.1
 */
public record RelayStats(long rounds, long sent, long refused, long failures) {}
