package dev.fencing.benchmarks;

import dev.fencing.testkit.db.PostgresFixture;
import dev.fencing.testkit.process.Ports;
import dev.fencing.testkit.process.ServerProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.postgresql.Driver;

/**
 * Debian's PgBouncer ({@code /usr/sbin/pgbouncer}) in transaction pooling mode in front of one
 * PostgreSQL server, for a benchmark row: on a free loopback port, its files in a temporary folder,
 * in the foreground (as {@code postgres} through {@code setpriv} when this JVM is root, since
 * PgBouncer refuses root), so that the pid kept is its own. Clients log in with the server's user
 * and password. {@link #close()} ends it by that pid.
 */
final class BenchBouncer implements AutoCloseable {

  private static final Path BINARY = Path.of("/usr/sbin/pgbouncer");

  private final ServerProcess process;
  private final int port;
  private final String database;
  private final PostgresFixture.Database server;

  private BenchBouncer(
      ServerProcess process, int port, String database, PostgresFixture.Database server) {
    this.process = process;
    this.port = port;
    this.database = database;
    this.server = server;
  }

  /**
   * Starts PgBouncer before {@code server} with at most {@code serverConnections} connections to it
   * and {@code maxClients} clients, and waits until a client can run a statement through it.
   *
   * @throws IllegalStateException if it did not answer within 10 s, with its log's tail
   */
  static BenchBouncer start(PostgresFixture.Database server, int serverConnections, int maxClients)
      throws IOException {
    Properties url = Driver.parseURL(server.jdbcUrl(), null);
    if (url == null || server.user().isEmpty()) {
      throw new IllegalArgumentException(
          "PgBouncer needs a PostgreSQL URL with FENCING_JDBC_USER and _PASSWORD, but had "
              + server.jdbcUrl());
    }
    int port = Ports.freePort();
    Path dir = Files.createTempDirectory("bench-pgbouncer");
    Files.writeString(
        dir.resolve("users.txt"), "\"%s\" \"%s\"\n".formatted(server.user(), server.password()));
    String database = url.getProperty("PGDBNAME");
    Files.writeString(
        dir.resolve("pgbouncer.ini"),
        """
        [databases]
        %s = host=%s port=%s dbname=%s
        [pgbouncer]
        listen_addr = 127.0.0.1
        listen_port = %d
        unix_socket_dir =
        auth_type = md5
        auth_file = %s
        pool_mode = transaction
        default_pool_size = %d
        max_client_conn = %d
        """
            .formatted(
                database,
                url.getProperty("PGHOST"),
                url.getProperty("PGPORT"),
                database,
                port,
                dir.resolve("users.txt"),
                serverConnections,
                maxClients));
    List<String> command = new ArrayList<>();
    if ("root".equals(System.getProperty("user.name"))) {
      // PgBouncer refuses to run as root: its files go to the user it runs as
      var postgres =
          dir.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("postgres");
      for (String name : List.of("", "users.txt", "pgbouncer.ini")) {
        Files.setOwner(dir.resolve(name), postgres);
      }
      command.addAll(List.of("setpriv", "--reuid=postgres", "--regid=postgres", "--init-groups"));
    }
    command.addAll(List.of(BINARY.toString(), dir.resolve("pgbouncer.ini").toString()));
    String through = jdbcUrl(port, database);
    ServerProcess process =
        ServerProcess.builder(command)
            .name("PgBouncer")
            .log(dir.resolve("pgbouncer.log"))
            .readyWhen("a client running a statement", () -> answers(through, server))
            .readyWithin(Duration.ofSeconds(10))
            .start();
    return new BenchBouncer(process, port, database, server);
  }

  /** The server through PgBouncer: pgjdbc without named server-side statements (docs/HA.md). */
  PostgresFixture.Database database() {
    return new PostgresFixture.Database(
        jdbcUrl(port, database), server.user(), server.password(), "pgbouncer");
  }

  /** PgBouncer's CPU time so far, in nanoseconds (-1 when unreadable). */
  long cpuNanos() {
    return ProcStat.cpuNanos(process.pid());
  }

  private static String jdbcUrl(int port, String database) {
    return "jdbc:postgresql://127.0.0.1:" + port + "/" + database + "?prepareThreshold=0";
  }

  private static boolean answers(String url, PostgresFixture.Database server) throws SQLException {
    try (Connection c = DriverManager.getConnection(url, server.user(), server.password())) {
      c.createStatement().execute("select 1");
      return true;
    }
  }

  /** Ends PgBouncer by its pid: SIGTERM, SIGKILL after 5 s. */
  @Override
  public void close() {
    process.close();
  }
}
