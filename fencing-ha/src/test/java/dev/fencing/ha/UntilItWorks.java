package dev.fencing.ha;

import dev.fencing.OutcomeUnknownException;
import dev.fencing.StoreUnavailableException;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;

/** Calls the library across a failover until it answers, noting each transient failure. */
final class UntilItWorks {

  private UntilItWorks() {}

  /**
   * Calls {@code call} until it returns, for at most {@code within}, adding each failure the
   * library calls transient to {@code failures} (with the time since {@code start}, a {@link
   * System#nanoTime()}); any other failure fails at once.
   *
   * @throws AssertionError if it has not returned within {@code within}, listing the failures
   */
  static <T> T call(long start, Duration within, List<String> failures, Supplier<T> call) {
    long deadline = System.nanoTime() + within.toNanos();
    while (true) {
      try {
        return call.get();
      } catch (StoreUnavailableException | OutcomeUnknownException e) {
        failures.add("+" + millisSince(start) + " ms " + describe(e));
        if (System.nanoTime() > deadline) {
          throw new AssertionError("no success within " + within + "; failures: " + failures, e);
        }
        OsProcesses.pause(Duration.ofMillis(250));
      }
    }
  }

  /** The exception's class and message, and the SQLSTATE of every SQL exception under it. */
  static String describe(Throwable e) {
    StringBuilder text = new StringBuilder(e.getClass().getSimpleName()).append(": ");
    text.append(e.getMessage() == null ? "" : e.getMessage().lines().findFirst().orElse(""));
    for (Throwable cause = e.getCause(); cause != null; cause = cause.getCause()) {
      if (cause instanceof SQLException sql) {
        text.append(" | ")
            .append(sql.getClass().getSimpleName())
            .append('[')
            .append(sql.getSQLState())
            .append("] ")
            .append(
                sql.getMessage() == null ? "" : sql.getMessage().lines().findFirst().orElse(""));
      }
    }
    return text.toString();
  }

  /** Milliseconds since {@code start}, a {@link System#nanoTime()}. */
  static long millisSince(long start) {
    return (System.nanoTime() - start) / 1_000_000;
  }
}
