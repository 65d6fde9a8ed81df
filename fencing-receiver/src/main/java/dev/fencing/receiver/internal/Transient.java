package dev.fencing.receiver.internal;

import java.sql.SQLException;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Which database failures are worth retrying: the connection, serialization, deadlock, shutdown.
 */
final class Transient {

  private static final Set<String> STATES = Set.of("40001", "40P01", "57P01", "57P02", "57P03");

  private Transient() {}

  /** Returns whether {@code failure}, or one of its causes, is a transient SQL failure. */
  static boolean failure(@Nullable Throwable failure) {
    Throwable t = failure;
    for (int depth = 0; t != null && depth < 16; depth++, t = t.getCause()) {
      if (t instanceof SQLException e && state(e.getSQLState())) {
        return true;
      }
    }
    return false;
  }

  /** Returns whether {@code sqlState} is in class 08 or one of the transient states. */
  static boolean state(@Nullable String sqlState) {
    return sqlState != null && (sqlState.startsWith("08") || STATES.contains(sqlState));
  }
}
