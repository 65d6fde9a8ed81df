package dev.fencing.postgres.internal;

import org.jooq.exception.DataAccessException;

/**
 * A commit whose outcome is unknown: {@link CommitOutcomeUnknown} or {@link
 * ReplicationOutcomeUnknown}.
 */
public abstract sealed class OutcomeUnknown extends DataAccessException
    permits CommitOutcomeUnknown, ReplicationOutcomeUnknown {
  private static final long serialVersionUID = 1L;

  OutcomeUnknown(String message, Throwable cause) {
    super(message, cause);
  }
}
