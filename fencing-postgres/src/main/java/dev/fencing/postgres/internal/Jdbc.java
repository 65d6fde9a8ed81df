package dev.fencing.postgres.internal;

import dev.fencing.SchemaNotInstalledException;
import dev.fencing.StoreUnavailableException;
import io.github.resilience4j.retry.Retry;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLWarning;
import java.sql.Statement;
import java.util.function.Function;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.exception.DataAccessException;
import org.jooq.impl.DSL;
import org.jspecify.annotations.Nullable;

/**
 * The access layer: every statement of every part runs through here, on a connection of its own,
 * and no failure of the database leaves it but translated ({@link StoreFailures}, the original as
 * cause). Each statement is committed whether or not the pool hands out connections in autocommit
 * mode: a pool set to {@code autoCommit=false} would otherwise roll every claim back when the
 * connection goes back to it.
 *
 * <p>In synchronous mode ({@link Config#synchronousReplication}) every call is one explicit
 * transaction that first forces {@code synchronous_commit = on} for itself alone and writes a WAL
 * record, so that its commit waits until the synchronous standby holds all WAL up to it: whatever
 * the call read or wrote is then on the standby, reads that resolve a lost acknowledgement
 * included. A commit whose wait was cancelled is {@link ReplicationOutcomeUnknown}.
 *
 * <p>A connection that refused a write as read-only (SQLSTATE 25006: it reaches a standby, or a
 * primary that was demoted) is aborted, not given back, so a pool drops it and the retry connects
 * afresh (to the new primary, through a multi-host URL).
 */
public final class Jdbc {

  /** A WAL record that changes nothing: an empty transactional logical message. */
  private static final String WAL_RECORD = "pg_logical_emit_message(true, 'fencing', '')";

  /**
   * Forces a synchronous commit for this transaction alone, and a WAL record in it (an empty
   * transactional logical message), without which a transaction that wrote nothing does not wait
   * for the standby at its commit (a transaction id alone is not enough).
   */
  private static final String SYNCHRONOUS =
      "select set_config('synchronous_commit', 'on', true), " + WAL_RECORD;

  /** A commit of this transaction alone that waits for no standby. */
  private static final String LOCAL = "select set_config('synchronous_commit', 'local', true)";

  /** What failed, as a translated failure names it. */
  private static final String STATEMENT = "a statement";

  /** The class of PostgreSQL's plain WARNING, which a cancelled synchronous wait raises. */
  private static final String WARNING = "01000";

  private final DataSource dataSource;
  private final DSLContext dsl;
  private final Retry retry;
  private final Config config;
  private final StoreFailures failures;

  @Inject
  Jdbc(DataSource dataSource, DSLContext dsl, Retry retry, Config config) {
    this.dataSource = dataSource;
    this.dsl = dsl;
    this.retry = retry;
    this.config = config;
    this.failures = StoreFailures.of(config);
  }

  /**
   * Runs {@code statement} again after a transient failure, as configured (the retry sees the
   * failure of the database as the cause of the translated one).
   *
   * @throws StoreUnavailableException if the database failed after the transient retries
   * @throws SchemaNotInstalledException if the schema lacks a table or a column
   */
  public <T> T guarded(Supplier<T> statement) {
    return guarded(STATEMENT, statement);
  }

  /**
   * As {@link #guarded(Supplier)}, for work that takes its connections itself (the installer's),
   * whose failures are translated here, naming {@code operation}.
   */
  public <T> T guarded(String operation, Supplier<T> work) {
    return failures.run(operation, Retry.decorateSupplier(retry, work));
  }

  /** {@link #run} retried after a transient failure, as {@link #guarded(Supplier)}. */
  public <T> T runRetried(Work<T> work) {
    return guarded(() -> run(work));
  }

  /** {@link #inspect} retried after a transient failure, as {@link #guarded(Supplier)}. */
  public <T> T inspectRetried(Work<T> work) {
    return guarded(() -> inspect(work));
  }

  /** {@link #transaction} retried after a transient failure, as {@link #guarded(Supplier)}. */
  public <T> T transactionRetried(Work<T> work) {
    return guarded(() -> transaction(work));
  }

  /**
   * A read on its own: what {@code read} reads with jOOQ, one statement on a connection of its own
   * committed as by {@link #run}, retried after a transient failure. A fresh read that explains a
   * refusal, a job's snapshot, a queue's depth, the operators' views.
   */
  public <T> T read(Function<DSLContext, T> read) {
    return runRetried(c -> read.apply(on(c)));
  }

  /** Runs {@code work} once, translating its failures as {@link #guarded(String, Supplier)}. */
  public <T> T once(String operation, Supplier<T> work) {
    return failures.run(operation, work);
  }

  /**
   * Runs {@code work} (one statement) and commits it: by autocommit, or explicitly when the
   * connection is not in autocommit mode; rolls back on failure.
   *
   * @throws StoreUnavailableException on any failure of the database (it is the cause)
   * @throws SchemaNotInstalledException if the schema lacks a table or a column
   */
  public <T> T run(Work<T> work) {
    if (config.synchronousReplication()) {
      return transaction(work);
    }
    return access(
        c -> {
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
            abortIfReadOnly(c, e);
            throw e;
          }
        });
  }

  /**
   * Commits a transaction that writes a WAL record, synchronously as the server is configured: once
   * it returns, all WAL written before it is flushed, an earlier asynchronous commit's included.
   *
   * @throws StoreUnavailableException on any failure of the database
   */
  public void flushEarlierCommits() {
    run(
        c -> {
          try (Statement s = c.createStatement()) {
            return s.execute("select " + WAL_RECORD);
          }
        });
  }

  /**
   * Runs {@code work} (reads only) in autocommit, never waiting for a standby, whatever the mode:
   * for what must answer while no synchronous standby is attached.
   *
   * @throws StoreUnavailableException on any failure of the database
   */
  public <T> T inspect(Work<T> work) {
    return access(
        c -> {
          boolean autoCommit = c.getAutoCommit();
          try {
            return work.run(c);
          } finally {
            if (!autoCommit) {
              c.rollback();
            }
          }
        });
  }

  /**
   * Runs {@code work} (several statements) in one transaction: all of it commits, or none.
   *
   * @throws StoreUnavailableException on any failure of the database; with a {@link
   *     CommitOutcomeUnknown} or {@link ReplicationOutcomeUnknown} as cause when the commit's
   *     outcome is unknown
   */
  public <T> T transaction(Work<T> work) {
    return transaction(config.synchronousReplication() ? SYNCHRONOUS : null, work);
  }

  /**
   * Runs {@code work} once, in a transaction of its own whose commit waits for no standby ({@code
   * synchronous_commit = local}), whatever the mode: for a write whose loss costs nothing (the
   * record of a refusal), which must not wait while no synchronous standby is attached.
   *
   * @throws StoreUnavailableException on any failure of the database
   */
  public <T> T unreplicated(Work<T> work) {
    return transaction(LOCAL, work);
  }

  /** A transaction that runs {@code first} (a setting of its own), if any, before {@code work}. */
  private <T> T transaction(@Nullable String first, Work<T> work) {
    return access(
        c -> {
          boolean autoCommit = c.getAutoCommit();
          if (autoCommit) {
            c.setAutoCommit(false);
          }
          @Nullable Exception failure = null;
          try {
            if (first != null) {
              try (Statement s = c.createStatement()) {
                s.execute(first);
              }
            }
            T result = work.run(c);
            commit(c);
            return result;
          } catch (SQLException | RuntimeException e) {
            failure = e;
            rollback(c, e);
            abortIfReadOnly(c, e);
            throw e;
          } finally {
            if (autoCommit) {
              restoreAutoCommit(c, failure);
            }
          }
        });
  }

  /**
   * Runs {@code work} on a connection of its own, which it gives back; the access layer's one
   * translation of what fails (see {@link StoreFailures}).
   */
  private <T> T access(Work<T> work) {
    try (Connection c = dataSource.getConnection()) {
      return work.run(c);
    } catch (SQLException e) {
      throw failures.translate(STATEMENT, new DataAccessException(e.getMessage(), e));
    } catch (RuntimeException e) {
      throw failures.translate(STATEMENT, e);
    }
  }

  /**
   * Commits, telling a lost acknowledgement (the connection broke once the commit was sent: it may
   * have landed or not) from a refusal (it did not land).
   */
  private void commit(Connection c) throws SQLException {
    if (config.synchronousReplication()) {
      c.clearWarnings();
    }
    try {
      c.commit();
    } catch (SQLException e) {
      // a backend terminated while it waits for the synchronous standby has committed locally,
      // and PostgreSQL closes its connection without another word: a broken connection, too
      String state = e.getSQLState();
      if (state != null && state.startsWith("08")) {
        throw new CommitOutcomeUnknown(e);
      }
      throw e;
    }
    if (config.synchronousReplication()) {
      SQLWarning cancelled = warning(c.getWarnings());
      if (cancelled != null) {
        throw new ReplicationOutcomeUnknown(cancelled);
      }
    }
  }

  /**
   * The first plain WARNING in {@code chain}. PostgreSQL answers a COMMIT whose wait for the
   * synchronous standby was cancelled ({@code pg_cancel_backend}, a statement timeout) with one
   * ("canceling wait for synchronous replication ... already committed locally, but might not have
   * been replicated"); matched on the SQLSTATE, since the text follows {@code lc_messages}.
   */
  private static @Nullable SQLWarning warning(@Nullable SQLWarning chain) {
    for (SQLWarning w = chain; w != null; w = w.getNextWarning()) {
      if (WARNING.equals(w.getSQLState())) {
        return w;
      }
    }
    return null;
  }

  /**
   * Aborts {@code c} if {@code failure} says it reaches a server that takes no writes: a pool then
   * drops it instead of lending it out to fail again. Its close afterwards is what tells the pool.
   */
  private static void abortIfReadOnly(Connection c, Exception failure) {
    if (!Transient.hasState(failure, Transient.READ_ONLY)) {
      return;
    }
    try {
      c.abort(Runnable::run);
    } catch (SQLException | RuntimeException e) {
      failure.addSuppressed(e);
    }
  }

  /** Returns jOOQ bound to {@code connection}, with the schema mapping of the queue. */
  public DSLContext on(Connection connection) {
    return DSL.using(dsl.configuration().derive(connection));
  }

  /** Returns the configuration of the graph this runs the statements of. */
  public Config config() {
    return config;
  }

  /**
   * Returns jOOQ on the data source: for rendering, and for the installer, which takes its
   * connections itself (run it through {@link #guarded(String, Supplier)}).
   */
  public DSLContext dsl() {
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
  public interface Work<T> {
    T run(Connection connection) throws SQLException;
  }
}
