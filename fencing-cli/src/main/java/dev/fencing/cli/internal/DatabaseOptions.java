package dev.fencing.cli.internal;

import dev.fencing.SchemaNotInstalledException;
import dev.fencing.SchemaVersionException;
import dev.fencing.StoreUnavailableException;
import dev.fencing.cli.ExitCode;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.postgres.admin.PostgresAdmin;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.postgresql.ds.PGSimpleDataSource;
import picocli.CommandLine.Option;

/** Where the database is: the options every database command shares. */
public final class DatabaseOptions {

  /** Seconds to wait for a connection before calling the database unreachable. */
  private static final int CONNECT_TIMEOUT_SECONDS = 5;

  @Option(
      names = "--url",
      defaultValue = "${env:FENCING_JDBC_URL}",
      description = "JDBC URL of the PostgreSQL (default: env FENCING_JDBC_URL)")
  @Nullable String url;

  @Option(
      names = "--user",
      defaultValue = "${env:FENCING_JDBC_USER}",
      description = "user, unless the URL names one (default: env FENCING_JDBC_USER)")
  @Nullable String user;

  @Option(
      names = "--password",
      defaultValue = "${env:FENCING_JDBC_PASSWORD}",
      description = "password (default: env FENCING_JDBC_PASSWORD)")
  @Nullable String password;

  @Option(
      names = "--schema",
      defaultValue = PostgresFencing.DEFAULT_SCHEMA,
      description = "schema of the fencing tables (default: ${DEFAULT-VALUE})")
  String schema = PostgresFencing.DEFAULT_SCHEMA;

  /**
   * Connects once to check that the database answers, then returns the admin on the schema.
   *
   * @throws CliException with {@link ExitCode#UNREACHABLE} or {@link ExitCode#NO_SCHEMA}
   */
  PostgresAdmin admin() {
    return reported(fencing()::admin);
  }

  /**
   * Returns what {@code call} returns; its failures to reach the database or to find a schema it
   * may run on become the CLI's.
   *
   * @throws CliException with {@link ExitCode#UNREACHABLE} or {@link ExitCode#NO_SCHEMA}
   */
  static <T> T reported(Supplier<T> call) {
    try {
      return call.get();
    } catch (SchemaNotInstalledException | SchemaVersionException e) {
      throw new CliException(ExitCode.NO_SCHEMA, e.getMessage());
    } catch (StoreUnavailableException e) {
      throw new CliException(ExitCode.UNREACHABLE, e.getMessage());
    }
  }

  /**
   * Connects once to check that the database answers, then returns the backend on the schema,
   * installing nothing.
   *
   * @throws CliException with {@link ExitCode#UNREACHABLE}
   */
  PostgresFencing fencing() {
    return builder().install(false).build();
  }

  /**
   * Connects once to check that the database answers, then returns a builder on the schema that
   * migrates it when built.
   *
   * @throws CliException with {@link ExitCode#UNREACHABLE}
   */
  PostgresFencing.Builder installing() {
    return builder().install(true);
  }

  private PostgresFencing.Builder builder() {
    if (url == null || url.isBlank()) {
      throw new CliException(ExitCode.USAGE, "no database: give --url or set FENCING_JDBC_URL");
    }
    PGSimpleDataSource ds = new PGSimpleDataSource();
    try {
      ds.setUrl(url);
    } catch (IllegalArgumentException e) {
      throw new CliException(
          ExitCode.UNREACHABLE,
          "not a PostgreSQL JDBC URL: "
              + withoutPassword(url)
              + " (expected jdbc:postgresql://host:port/database)");
    }
    if (user != null && !user.isEmpty()) {
      ds.setUser(user);
    }
    if (password != null && !password.isEmpty()) {
      ds.setPassword(password);
    }
    ds.setConnectTimeout(CONNECT_TIMEOUT_SECONDS);
    ds.setLoginTimeout(CONNECT_TIMEOUT_SECONDS);
    try (Connection c = ds.getConnection()) {
      c.isValid(CONNECT_TIMEOUT_SECONDS);
    } catch (SQLException e) {
      throw new CliException(
          ExitCode.UNREACHABLE,
          "cannot connect to " + withoutPassword(url) + ": " + oneLine(e.getMessage()));
    }
    return PostgresFencing.builder(ds).schema(schema);
  }

  /** The URL as it may be shown: a password parameter in it is masked. */
  static String withoutPassword(String url) {
    return url.replaceAll("(?i)(password=)[^&]*", "$1***")
        .replaceAll("//([^/@:]+):[^/@]*@", "//$1:***@");
  }

  private static String oneLine(@Nullable String text) {
    return String.valueOf(text).replaceAll("\\s+", " ").trim();
  }
}
