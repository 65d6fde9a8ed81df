package dev.fencing.postgres.internal;

import java.sql.SQLException;

/**
 * A commit whose acknowledgement was lost. Its cause keeps the connection failure, so the retry of
 * a statement that can resolve this (by a token) still sees a transient failure.
 */
public final class CommitOutcomeUnknown extends OutcomeUnknown {
  private static final long serialVersionUID = 1L;

  CommitOutcomeUnknown(SQLException cause) {
    super("the connection broke after the commit was sent: " + cause.getMessage(), cause);
  }
}
