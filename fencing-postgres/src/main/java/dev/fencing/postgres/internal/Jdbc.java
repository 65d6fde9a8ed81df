package dev.fencing.postgres.internal;

import io.github.resilience4j.retry.Retry;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.exception.DataAccessException;
import org.jooq.impl.DSL;
import org.jspecify.annotations.Nullable;

/**
 * Every statement of the queue runs through here, on a connection of its own, and is committed
 * whether or not the pool hands out connections in autocommit mode: a pool set to {@code
 * autoCommit=false} would otherwise roll every claim back when the connection goes back to it.
 */
final class Jdbc {

  private final DataSource dataSource;
  private final DSLContext dsl;
  private final Retry retry;

  @Inject
  Jdbc(DataSource dataSource, DSLContext dsl, Retry retry) {
    this.dataSource = dataSource;
    this.dsl = dsl;
    this.retry = retry;
  }

  /** Runs {@code statement} again after a transient failure, as configured. */
  <T> T guarded(Supplier<T> statement) {
    return Retry.decorateSupplier(retry, statement).get();
  }

  /**
   * Runs {@code work} (one statement) and commits it: by autocommit, or explicitly when the
   * connection is not in autocommit mode; rolls back on failure.
   *
   * @throws DataAccessException on any failure of the database
   */
  <T> T run(Work<T> work) {
    try (Connection c = dataSource.getConnection()) {
      boolean autoCommit = c.getAutoCommit();
      try {
        T result = work.run(c);
        if (!autoCommit) {
          c.commit();
        }
        return result;
      } catch (SQLException | RuntimeException e) {
        if (!autoCommit) {
          rollback(c, e);
        }
        throw e;
      }
    } catch (SQLException e) {
      throw new DataAccessException(e.getMessage(), e);
    }
  }

  /**
   * Runs {@code work} (several statements) in one transaction: all of it commits, or none.
   *
   * @throws DataAccessException on any failure of the database
   */
  <T> T transaction(Work<T> work) {
    try (Connection c = dataSource.getConnection()) {
      boolean autoCommit = c.getAutoCommit();
      if (autoCommit) {
        c.setAutoCommit(false);
      }
      @Nullable Exception failure = null;
      try {
        T result = work.run(c);
        commit(c);
        return result;
      } catch (SQLException | RuntimeException e) {
        failure = e;
        rollback(c, e);
        throw e;
      } finally {
        if (autoCommit) {
          restoreAutoCommit(c, failure);
        }
      }
    } catch (SQLException e) {
      throw new DataAccessException(e.getMessage(), e);
    }
  }

  /**
   * Commits, telling a lost acknowledgement (the connection broke once the commit was sent: it may
   * have landed or not) from a refusal (it did not land).
   */
  private static void commit(Connection c) throws SQLException {
    try {
      c.commit();
    } catch (SQLException e) {
      if (e.getSQLState() != null && e.getSQLState().startsWith("08")) {
        throw new CommitOutcomeUnknown(e);
      }
      throw e;
    }
  }

  /**
   * A commit whose acknowledgement was lost. Its cause keeps the connection failure, so the retry
   * of a statement that can resolve this (by a token) still sees a transient failure.
   */
  static final class CommitOutcomeUnknown extends DataAccessException {
    private static final long serialVersionUID = 1L;

    CommitOutcomeUnknown(SQLException cause) {
      super("the connection broke after the commit was sent: " + cause.getMessage(), cause);
    }
  }

  /** Returns jOOQ bound to {@code connection}, with the schema mapping of the queue. */
  DSLContext on(Connection connection) {
    return DSL.using(dsl.configuration().derive(connection));
  }

  /** Returns jOOQ for rendering only (it executes nothing itself). */
  DSLContext dsl() {
    return dsl;
  }

  /** On a broken connection this fails too; the failure that broke it is the one to report. */
  private static void restoreAutoCommit(Connection c, @Nullable Exception failure)
      throws SQLException {
    try {
      c.setAutoCommit(true);
    } catch (SQLException e) {
      if (failure == null) {
        throw e;
      }
      failure.addSuppressed(e);
    }
  }

  private static void rollback(Connection c, Exception failure) {
    try {
      c.rollback();
    } catch (SQLException e) {
      failure.addSuppressed(e);
    }
  }

  /** Work on one connection. */
  @FunctionalInterface
  interface Work<T> {
    T run(Connection connection) throws SQLException;
  }
}
