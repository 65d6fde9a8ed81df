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
      try {
        T result = work.run(c);
        c.commit();
        return result;
      } catch (SQLException | RuntimeException e) {
        rollback(c, e);
        throw e;
      } finally {
        if (autoCommit) {
          c.setAutoCommit(true);
        }
      }
    } catch (SQLException e) {
      throw new DataAccessException(e.getMessage(), e);
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
