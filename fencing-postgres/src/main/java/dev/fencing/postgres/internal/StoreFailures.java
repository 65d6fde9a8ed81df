package dev.fencing.postgres.internal;

import dev.fencing.SchemaNotInstalledException;
import dev.fencing.StoreUnavailableException;
import java.sql.SQLException;
import java.util.Set;
import java.util.function.Supplier;
import org.jooq.exception.DataAccessException;
import org.jspecify.annotations.Nullable;

/**
 * The one translator of the database's failures into the exceptions of {@code fencing-api}, by
 * type: an {@link SQLException} or a jOOQ {@link DataAccessException} (the access layer's own
 * {@link CommitOutcomeUnknown} and {@link ReplicationOutcomeUnknown} included) becomes {@link
 * SchemaNotInstalledException} when a cause's SQLSTATE says the schema lacks a table or a column,
 * else {@link StoreUnavailableException}. The original failure stays the cause, so what decides on
 * it afterwards (the retry, which walks the causes; a refusal of {@code jsonb}; a lost
 * acknowledgement) still sees it; the message names the schema and what failed. Anything else (an
 * exception of the API, bad input, an error) passes unchanged. {@link Jdbc} applies it to every
 * statement; the few places that open connections themselves apply it as well.
 */
public final class StoreFailures {

  /** Missing schema, missing table, missing column: the schema was not installed (or is older). */
  private static final Set<String> NOT_INSTALLED = Set.of("3F000", "42P01", "42703");

  private final Config config;

  StoreFailures(Config config) {
    this.config = config;
  }

  /** Returns the translator of the configuration's schema. */
  public static StoreFailures of(Config config) {
    return new StoreFailures(config);
  }

  /** Runs {@code work}, translating what escapes it (see {@link #translate}). */
  public <T> T run(String operation, Supplier<T> work) {
    try {
      return work.get();
    } catch (RuntimeException e) {
      throw translate(operation, e);
    }
  }

  /**
   * Returns {@code failure} as a caller of the API should see it: translated if it is the
   * database's (see the class), with {@code failure} as cause; else unchanged.
   */
  public RuntimeException translate(String operation, RuntimeException failure) {
    if (!isStoreFailure(failure)) {
      return failure;
    }
    String said = describe(failure);
    if (failure instanceof ReplicationOutcomeUnknown) {
      return new StoreUnavailableException(
          prefix()
              + "the primary committed "
              + operation
              + ", but its wait for the synchronous standby was cancelled"
              + " ("
              + said
              + "), so a failover may lose the write; its outcome is unknown",
          failure);
    }
    String state = sqlState(failure);
    if (state != null && NOT_INSTALLED.contains(state)) {
      SchemaNotInstalledException missing =
          new SchemaNotInstalledException(
              config.schema(),
              "PostgreSQL: "
                  + operation
                  + " found no fencing tables of this version in schema "
                  + config.schema()
                  + " ("
                  + said
                  + "); install them with PostgresFencing.builder(dataSource).schema(\""
                  + config.schema()
                  + "\").build(), or run the scripts of PostgresFencing.migrations() with search_path set to "
                  + config.schema());
      missing.initCause(failure);
      return missing;
    }
    return new StoreUnavailableException(
        prefix() + operation + " failed" + retried(failure) + ": " + said, failure);
  }

  /**
   * Returns {@code translated} (as {@link #translate} made it, or one of ours) as the failure of
   * {@code what}: its message whole after {@code what}, and itself the cause, so that nothing it
   * said (how often it was retried, an outcome unknown) is lost.
   */
  public StoreUnavailableException during(String what, StoreUnavailableException translated) {
    String said = String.valueOf(translated.getMessage());
    String prefix = prefix();
    return new StoreUnavailableException(
        prefix + what + ": " + (said.startsWith(prefix) ? said.substring(prefix.length()) : said),
        translated);
  }

  /** Says how often {@code failure} was retried, if it is of the kind that is. */
  String retried(Throwable failure) {
    return Transient.isTransient(failure)
        ? " (transient failures retried " + config.transientRetries() + " times)"
        : "";
  }

  private String prefix() {
    return "PostgreSQL (schema " + config.schema() + "): ";
  }

  /**
   * Whether {@code failure} is the database's: jOOQ's, which {@link Jdbc} also wraps JDBC's in, and
   * which must not escape. The API's exceptions and errors are not, even with such a cause.
   */
  static boolean isStoreFailure(Throwable failure) {
    return failure instanceof DataAccessException;
  }

  /** The driver's own words (they name the host and port it could not reach), on one line. */
  static String describe(Throwable failure) {
    SQLException driver = Text.firstCause(failure, SQLException.class, e -> true);
    String said = driver != null ? driver.getMessage() : failure.getMessage();
    return String.valueOf(said).replaceAll("\\s+", " ").trim();
  }

  /**
   * Returns the failure of the database under {@code failure} (which an access layer's statement
   * threw) if it is of {@code type}, else null: how internal code decides on a translated failure.
   */
  static <E extends Throwable> @Nullable E cause(Throwable failure, Class<E> type) {
    return Text.firstCause(failure, type, e -> true);
  }

  private static @Nullable String sqlState(Throwable failure) {
    SQLException stated =
        Text.firstCause(failure, SQLException.class, e -> e.getSQLState() != null);
    return stated == null ? null : stated.getSQLState();
  }
}
