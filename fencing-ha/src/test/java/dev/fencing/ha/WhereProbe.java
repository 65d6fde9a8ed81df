package dev.fencing.ha;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.sql.DataSource;

/**
 * Asks through PgBouncer, every 100 ms on a new client connection, which server a statement reaches
 * and whether it is in recovery, and notes each change of answer (a failure by its SQLSTATE), until
 * stopped.
 */
final class WhereProbe {

  /** The port of the server a statement reaches, and whether it is in recovery. */
  static final String WHERE = "select inet_server_port() || ' ' || pg_is_in_recovery()";

  private final DataSource through;
  private final long start;
  private final List<String> changes = new CopyOnWriteArrayList<>();
  private final Thread thread;
  private volatile boolean stopped;

  WhereProbe(PgBouncerProcess bouncer, long start) {
    this.through =
        bouncer.database(PgBouncerProcess.PGJDBC_PARAMETERS + "&socketTimeout=5").dataSource();
    this.start = start;
    this.thread = Thread.ofPlatform().daemon().name("where-probe").start(this::run);
  }

  private void run() {
    String last = "";
    while (!stopped) {
      String answer;
      try (Connection c = through.getConnection()) {
        answer = where(c);
      } catch (SQLException e) {
        answer =
            "SQLSTATE "
                + e.getSQLState()
                + ": "
                + String.valueOf(e.getMessage()).lines().findFirst().orElse("");
      }
      if (!answer.equals(last)) {
        changes.add("+" + AcrossFailover.millisSince(start) + " ms " + answer);
        last = answer;
      }
      OsProcesses.pause(Duration.ofMillis(100));
    }
  }

  /** Stops it and returns the changes it saw, the first answer included. */
  List<String> stop() {
    stopped = true;
    try {
      thread.join(Duration.ofSeconds(10));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    }
    return List.copyOf(changes);
  }

  /** {@link #WHERE} on {@code c}: {@code "<port> <in recovery>"}. */
  static String where(Connection c) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(WHERE)) {
      rs.next();
      return rs.getString(1);
    }
  }
}
