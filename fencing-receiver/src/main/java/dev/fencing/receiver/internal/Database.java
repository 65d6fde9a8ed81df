package dev.fencing.receiver.internal;

import dev.fencing.receiver.ReceiverException;
import io.github.resilience4j.core.IntervalFunction;
import io.github.resilience4j.retry.Retry;
import io.github.resilience4j.retry.RetryConfig;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.Callable;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Runs units of JDBC work on fresh connections, retrying transient failures a few times. */
final class Database {

  /** One unit of work on a connection. */
  @FunctionalInterface
  interface Work<T> {
    T run(Connection connection) throws SQLException;
  }

  static final int MAX_ATTEMPTS = 4;

  private static final Logger LOG = LoggerFactory.getLogger(Database.class);

  private final DataSource dataSource;
  private final String description;
  private final Retry retry;

  Database(DataSource dataSource, String description) {
    this.dataSource = dataSource;
    this.description = description;
    RetryConfig config =
        RetryConfig.custom()
            .maxAttempts(MAX_ATTEMPTS)
            .intervalFunction(
                IntervalFunction.ofExponentialRandomBackoff(Duration.ofMillis(50), 2.0, 0.5))
            .retryOnException(Transient::failure)
            .build();
    this.retry = Retry.of(description, config);
    retry
        .getEventPublisher()
        .onRetry(
            event ->
                LOG.warn(
                    "{}: transient failure on attempt {} of {}, retrying in {} ms: {}",
                    description,
                    event.getNumberOfRetryAttempts(),
                    MAX_ATTEMPTS,
                    event.getWaitInterval().toMillis(),
                    String.valueOf(event.getLastThrowable())));
  }

  /** What the receiver is, for messages. */
  String description() {
    return description;
  }

  /**
   * Runs {@code work}, committing afterwards if the connection is not in auto-commit mode.
   *
   * @throws SQLException the last failure, if it was not transient or every attempt failed
   */
  <T> T call(Work<T> work) throws SQLException {
    return retried(() -> once(work, false));
  }

  /** Runs {@code work} in one transaction, committed at the end. */
  <T> T transaction(Work<T> work) throws SQLException {
    return retried(() -> once(work, true));
  }

  /** Returns {@code failure} as the unchecked exception a caller sees. */
  ReceiverException failed(String what, SQLException failure) {
    String attempts =
        Transient.failure(failure) ? " (gave up after " + MAX_ATTEMPTS + " attempts)" : "";
    return new ReceiverException(
        description
            + ": could not "
            + what
            + attempts
            + ": SQLState "
            + failure.getSQLState()
            + ": "
            + failure.getMessage(),
        failure);
  }

  private <T> T retried(Callable<T> attempt) throws SQLException {
    try {
      return retry.executeCallable(attempt);
    } catch (SQLException | RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException(description + ": unexpected failure", e);
    }
  }

  private <T> T once(Work<T> work, boolean transaction) throws SQLException {
    try (Connection connection = dataSource.getConnection()) {
      boolean autoCommit = connection.getAutoCommit();
      if (autoCommit && !transaction) {
        return work.run(connection);
      }
      if (autoCommit) {
        connection.setAutoCommit(false);
      }
      try {
        T result = work.run(connection);
        connection.commit();
        return result;
      } catch (SQLException | RuntimeException e) {
        rollback(connection, e);
        throw e;
      } finally {
        if (autoCommit) {
          restoreAutoCommit(connection);
        }
      }
    }
  }

  private static void rollback(Connection connection, Exception failure) {
    try {
      connection.rollback();
    } catch (SQLException e) {
      failure.addSuppressed(e);
    }
  }

  private static void restoreAutoCommit(Connection connection) {
    try {
      connection.setAutoCommit(true);
    } catch (SQLException e) {
      // The connection is broken and about to be closed; the failure that broke it is reported.
    }
  }
}
