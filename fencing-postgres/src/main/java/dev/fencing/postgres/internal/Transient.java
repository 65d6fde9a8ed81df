package dev.fencing.postgres.internal;

import io.github.resilience4j.retry.Retry;
import io.github.resilience4j.retry.RetryConfig;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/** Which database failures are worth retrying, and the retry that does it. */
final class Transient {

  /** Read-only transaction: a write on a standby, or a LISTEN on one ("during recovery"). */
  static final String READ_ONLY = "25006";

  private static final Set<String> STATES =
      Set.of("40001", "40P01", "57P01", "57P02", "57P03", "53300", READ_ONLY);

  private Transient() {}

  static Retry retry(Config config) {
    return Retry.of(
        "fencing-postgres",
        RetryConfig.custom()
            .maxAttempts(config.transientRetries() + 1)
            .waitDuration(config.retryWait())
            .retryOnException(Transient::isTransient)
            .build());
  }

  /**
   * Returns whether {@code failure} (or a cause) is a lost connection, a serialization failure,
   * etc., or a connection the data source could not hand out in time ({@link
   * SQLTransientConnectionException}, whatever its SQLSTATE: HikariCP's "Connection is not
   * available, request timed out" has none while its attempt still waits for a primary under {@code
   * PrimaryWaitingDataSource}); nothing was sent then.
   */
  static boolean isTransient(Throwable failure) {
    return Text.firstCause(
            failure,
            SQLException.class,
            e -> e instanceof SQLTransientConnectionException || isTransientState(e.getSQLState()))
        != null;
  }

  /** Returns whether {@code failure} or a cause is an SQL exception with SQLSTATE {@code state}. */
  static boolean hasState(Throwable failure, String state) {
    return Text.firstCause(failure, SQLException.class, e -> state.equals(e.getSQLState())) != null;
  }

  private static boolean isTransientState(@Nullable String state) {
    return state != null && (state.startsWith("08") || STATES.contains(state));
  }
}
