package dev.fencing.ha;

import dev.fencing.internal.Validate;
import dev.fencing.testkit.db.PostgresFixture;
import dev.fencing.testkit.process.Ports;
import dev.fencing.testkit.process.ServerProcess;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.postgresql.Driver;

/**
 * PgBouncer (Debian's {@code pgbouncer}, 1.18 on bookworm) in transaction pooling mode in front of
 * one PostgreSQL server, on a free loopback port, its ini, user list and log under {@code
 * target/pgbouncer/<random>/}. It runs in the foreground, not as a daemon, so the pid kept is its
 * own; as root it runs as {@code postgres} (PgBouncer refuses root) through {@code setpriv}, which
 * execs.
 *
 * <p>Clients log in with the server's user and password ({@code md5}; {@code trust} when the
 * server's user has no password, as the embedded PostgreSQL's), and PgBouncer logs in to the server
 * with them. {@link #close()} ends the process by its pid; the test kit's {@link ServerProcess}
 * does if the JVM exits first. {@link #shared()} is one for the whole test run.
 */
public final class PgBouncerProcess implements AutoCloseable {

  /** Where Debian's package puts the binary; else it is looked for on {@code PATH}. */
  static final Path DEBIAN_BINARY = Path.of("/usr/sbin/pgbouncer");

  /**
   * What pgjdbc needs through PgBouncer 1.18 in transaction mode: no named server-side prepared
   * statements, which live on one server connection while the client's next transaction may run on
   * another (PgBouncer tracks them itself from 1.21, with {@code max_prepared_statements}).
   */
  public static final String PGJDBC_PARAMETERS = "prepareThreshold=0";

  /**
   * The server connections of {@link #shared()}: fewer than a test's clients, so that clients take
   * turns on them, as under load.
   */
  static final int SHARED_SERVER_CONNECTIONS = 2;

  /** PgBouncer's own {@code server_login_retry}. */
  static final Duration DEFAULT_SERVER_LOGIN_RETRY = Duration.ofSeconds(15);

  private static PgBouncerProcess shared;

  /** What to install when the binary is missing. */
  static final String PACKAGE = "apt-get install -y pgbouncer";

  private final Path dir;
  private final int port = Ports.freePort();
  private final String database;
  private final String user;
  private final String password;
  private final ServerProcess process;

  private PgBouncerProcess(
      Path dir,
      Path binary,
      PostgresFixture.Database server,
      int serverConnections,
      Duration serverLoginRetry) {
    this.dir = dir;
    Properties url = parse(server.jdbcUrl());
    String host = url.getProperty("PGHOST");
    if (host.contains(",")) {
      throw new IllegalArgumentException(
          "server must be one host (PgBouncer 1.18 cannot follow a primary), but was "
              + server.jdbcUrl());
    }
    this.database = url.getProperty("PGDBNAME");
    this.user = server.user().isEmpty() ? url.getProperty("user", "") : server.user();
    this.password =
        server.password().isEmpty() ? url.getProperty("password", "") : server.password();
    if (user.isEmpty()) {
      throw new IllegalArgumentException(
          "server must name a user, but neither its URL nor its user did: " + server);
    }
    try {
      Files.createDirectories(dir);
      Files.writeString(userList(), "\"%s\" \"%s\"\n".formatted(user, password));
      Files.writeString(
          ini(),
          ini(
              host,
              Integer.parseInt(url.getProperty("PGPORT")),
              serverConnections,
              serverLoginRetry));
      List<String> command = new ArrayList<>();
      if (Host.root()) {
        command.addAll(Host.AS_POSTGRES);
        for (Path path : List.of(dir, ini(), userList())) {
          Host.chown(path);
        }
      }
      command.add(binary.toString());
      command.add(ini().toString());
      this.process =
          ServerProcess.builder(command)
              .name("PgBouncer")
              .directory(dir)
              .log(log())
              .readyWhen("a client running a statement", this::answers)
              .readyWithin(Duration.ofSeconds(10))
              .start();
    } catch (IOException e) {
      throw new AssertionError("could not start PgBouncer in " + dir + ": " + e, e);
    }
  }

  /**
   * Starts PgBouncer in front of {@code server} with at most {@code serverConnections} connections
   * to it, and waits until it lets a client run a statement.
   *
   * @param server a single-host JDBC URL with its user and password
   * @param serverConnections PgBouncer's {@code default_pool_size}, 1 to 50
   * @throws AssertionError if PgBouncer is not installed
   * @throws IllegalStateException if it does not answer within 10 s, with its log's tail
   */
  public static PgBouncerProcess start(PostgresFixture.Database server, int serverConnections) {
    return start(server, serverConnections, DEFAULT_SERVER_LOGIN_RETRY);
  }

  /**
   * Starts PgBouncer as {@link #start(PostgresFixture.Database, int)} does, waiting {@code
   * serverLoginRetry} (PgBouncer's {@code server_login_retry}, whole seconds) after a failed
   * connection to the server before it tries again. A reload does not cut that wait short: in front
   * of a cluster whose primary moves, it delays the first connection to the new primary.
   *
   * @param serverLoginRetry between 1 s and 60 s
   */
  public static PgBouncerProcess start(
      PostgresFixture.Database server, int serverConnections, Duration serverLoginRetry) {
    Validate.between("serverConnections", serverConnections, 1, 50);
    Validate.between(
        "serverLoginRetry", serverLoginRetry, Duration.ofSeconds(1), Duration.ofSeconds(60));
    Path binary = binary(DEBIAN_BINARY, System.getenv().getOrDefault("PATH", ""));
    Path dir = Path.of("target", "pgbouncer", UUID.randomUUID().toString().substring(0, 8));
    return new PgBouncerProcess(
        dir.toAbsolutePath(), binary, server, serverConnections, serverLoginRetry);
  }

  /**
   * Returns this JVM's PgBouncer in front of the test kit's PostgreSQL ({@link
   * PostgresFixture#get()}), with {@value #SHARED_SERVER_CONNECTIONS} server connections, starting
   * it on first use; it ends when the JVM exits.
   */
  public static synchronized PgBouncerProcess shared() {
    if (shared == null) {
      shared = start(PostgresFixture.get(), SHARED_SERVER_CONNECTIONS);
    }
    return shared;
  }

  /**
   * A HikariCP pool of at most {@code size} connections through PgBouncer, with {@link
   * #PGJDBC_PARAMETERS}. Pools live as long as the JVM.
   */
  public DataSource pool(int size) {
    return database(PGJDBC_PARAMETERS).pooledDataSource(size);
  }

  /**
   * The server through PgBouncer, for a data source: its URL with {@code parameters} (such as
   * {@code prepareThreshold=0}, or empty for none), the same user and password.
   */
  public PostgresFixture.Database database(String parameters) {
    String url = "jdbc:postgresql://127.0.0.1:" + port + "/" + database + "?connectTimeout=2";
    return new PostgresFixture.Database(
        parameters.isEmpty() ? url : url + "&" + parameters, user, password, "pgbouncer");
  }

  /**
   * Runs {@code SHOW what} on PgBouncer's admin console (e.g. {@code SERVERS}) with {@code psql}
   * (pgjdbc cannot: it sends a {@code SET} the console refuses) and returns its rows, each a map
   * from column name to text.
   *
   * @throws AssertionError if {@code psql} is missing, fails, or takes more than 10 s
   */
  public List<Map<String, String>> show(String what) {
    Path psql = Path.of(Host.PG_BIN, "psql");
    List<String> command =
        List.of(
            psql.toString(),
            "-X",
            "-A",
            "-F",
            "\t",
            "-P",
            "footer=off",
            "-h",
            "127.0.0.1",
            "-p",
            String.valueOf(port),
            "-U",
            user,
            "-d",
            "pgbouncer",
            "-c",
            "SHOW " + what);
    try {
      ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
      builder.environment().put("PGPASSWORD", password);
      builder.environment().put("PGCONNECT_TIMEOUT", "2");
      Process process = builder.start();
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        throw new AssertionError(command + " took more than 10 s");
      }
      List<String> lines =
          new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8)
              .lines()
              .toList();
      if (process.exitValue() != 0 || lines.isEmpty()) {
        throw new AssertionError(command + " exited with " + process.exitValue() + ": " + lines);
      }
      String[] columns = lines.getFirst().split("\t", -1);
      List<Map<String, String>> rows = new ArrayList<>();
      for (String line : lines.subList(1, lines.size())) {
        String[] values = line.split("\t", -1);
        Map<String, String> row = new LinkedHashMap<>();
        for (int i = 0; i < columns.length && i < values.length; i++) {
          row.put(columns[i], values[i]);
        }
        rows.add(row);
      }
      return rows;
    } catch (IOException e) {
      throw new AssertionError(
          command + ": " + e + " (psql is in Debian's postgresql-client-15)", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    }
  }

  /** PgBouncer's own process. */
  public ProcessHandle process() {
    return process.handle();
  }

  /**
   * Ends PgBouncer by its pid (SIGTERM, its immediate shutdown; SIGKILL after 5 s) and waits until
   * it is gone. The files stay.
   *
   * @throws IllegalStateException if it outlives SIGKILL for 10 s
   */
  @Override
  public void close() {
    process.close();
  }

  @Override
  public String toString() {
    return "PgBouncerProcess[" + database("").jdbcUrl() + ", " + dir + "]";
  }

  /**
   * The PgBouncer binary: {@code preferred} if it is there, else the first {@code pgbouncer} on
   * {@code path}.
   *
   * @throws AssertionError saying how to install it, if there is none
   */
  static Path binary(Path preferred, String path) {
    if (Files.isExecutable(preferred)) {
      return preferred;
    }
    Optional<Path> found =
        Stream.of(path.split(File.pathSeparator))
            .filter(entry -> !entry.isEmpty())
            .map(entry -> Path.of(entry, "pgbouncer"))
            .filter(Files::isExecutable)
            .findFirst();
    return found.orElseThrow(
        () ->
            new AssertionError(
                "PgBouncer is not installed (neither "
                    + preferred
                    + " nor pgbouncer on PATH): install it (Debian/Ubuntu: "
                    + PACKAGE
                    + ")"));
  }

  /**
   * Transaction pooling, at most {@code serverConnections} server connections per user and
   * database, and nothing else that changes what a client sees: PgBouncer's defaults otherwise (no
   * {@code max_prepared_statements}, which 1.18 does not have), but {@code server_login_retry} as
   * given. A pidfile, for whoever reloads it ({@link FollowPrimaryCallback}); the user may run
   * {@code SHOW} on the admin console ({@link #show}).
   */
  private String ini(
      String host, int serverPort, int serverConnections, Duration serverLoginRetry) {
    return """
        [databases]
        %s = host=%s port=%d dbname=%s

        [pgbouncer]
        listen_addr = 127.0.0.1
        listen_port = %d
        unix_socket_dir =
        auth_type = %s
        auth_file = %s
        pool_mode = transaction
        default_pool_size = %d
        max_client_conn = 200
        server_login_retry = %d
        pidfile = %s
        admin_users = %s
        """
        .formatted(
            database,
            host,
            serverPort,
            database,
            port,
            password.isEmpty() ? "trust" : "md5",
            userList(),
            serverConnections,
            serverLoginRetry.toSeconds(),
            pidFile(),
            user);
  }

  /** Whether a client logs in through PgBouncer and runs a statement. */
  private boolean answers() throws SQLException {
    Properties login = new Properties();
    login.setProperty("user", user);
    login.setProperty("password", password);
    try (Connection c = DriverManager.getConnection(database("").jdbcUrl(), login)) {
      c.createStatement().execute("select 1");
      return true;
    }
  }

  private static Properties parse(String jdbcUrl) {
    Properties parsed = Driver.parseURL(jdbcUrl, null);
    if (parsed == null) {
      throw new IllegalArgumentException(
          "server must have a PostgreSQL JDBC URL, but was " + jdbcUrl);
    }
    return parsed;
  }

  Path ini() {
    return dir.resolve("pgbouncer.ini");
  }

  private Path userList() {
    return dir.resolve("userlist.txt");
  }

  /** Where PgBouncer writes its pid while it runs. */
  Path pidFile() {
    return dir.resolve("pgbouncer.pid");
  }

  Path log() {
    return dir.resolve("pgbouncer.log");
  }
}
