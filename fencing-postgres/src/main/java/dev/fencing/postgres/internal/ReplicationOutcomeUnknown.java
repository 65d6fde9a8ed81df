package dev.fencing.postgres.internal;

import java.sql.SQLWarning;

/**
 * A commit that landed on the primary but whose wait for the synchronous standby was cancelled: the
 * primary shows it, and a failover may lose it, so reading it back proves nothing. Not transient:
 * it is never retried.
 */
public final class ReplicationOutcomeUnknown extends OutcomeUnknown {
  private static final long serialVersionUID = 1L;

  ReplicationOutcomeUnknown(SQLWarning cause) {
    super(
        "the commit landed on the primary, but its wait for the synchronous standby was"
            + " cancelled, so a failover may lose it: "
            + cause.getMessage(),
        cause);
  }
}
