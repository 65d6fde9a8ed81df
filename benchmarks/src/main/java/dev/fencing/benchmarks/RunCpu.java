package dev.fencing.benchmarks;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.util.HashMap;
import java.util.Map;
import javax.sql.DataSource;

/**
 * The CPU time one child JVM and the PostgreSQL backends of one database spent over the child's
 * life, read from /proc every {@link #POLL_MILLIS} ms. A backend or process that ends keeps its
 * last reading, so what it spent in its last poll interval is missed; a backend that connected
 * after the watch began counts from zero, one that was there before from its first reading. The
 * server's background processes (WAL writer, checkpointer, autovacuum) are left out, as in {@link
 * PgObserver}.
 */
final class RunCpu implements AutoCloseable {

  static final long POLL_MILLIS = 500;

  /** CPU nanoseconds of the child JVM and of the database's backends; -1 where unreadable. */
  record Spent(long jvmNanos, long pgNanos) {}

  private final Connection connection;
  private final long pid;
  private final Timestamp began;
  private final Map<Integer, long[]> backends = new HashMap<>(); // pid -> {base, last}
  private final Thread poller; // null when the owner of the connection polls
  private volatile boolean running = true;
  private long jvmLast;
  private long backendsRead;
  private long backendsUnread;
  private long queries;

  private RunCpu(Connection connection, long pid, boolean polling) throws SQLException {
    this.connection = connection;
    this.pid = pid;
    try (Statement s = connection.createStatement();
        ResultSet r = s.executeQuery("select now()")) {
      r.next();
      this.began = r.getTimestamp(1);
      queries++;
    }
    poll();
    this.poller =
        polling ? Thread.ofPlatform().name("run-cpu").daemon().start(this::pollLoop) : null;
  }

  /** Starts watching process {@code pid} and the backends of the database {@code ds} reaches. */
  static RunCpu watch(DataSource ds, long pid) throws SQLException {
    Connection connection = ds.getConnection();
    try {
      connection.setAutoCommit(true);
      return new RunCpu(connection, pid, true);
    } catch (SQLException | RuntimeException e) {
      connection.close();
      throw e;
    }
  }

  /**
   * Watches the backends of {@code connection}'s database (no process: 0 for it) on that
   * connection, which the caller owns and closes: it calls {@link #poll} itself, from the one
   * thread that uses the connection, at least every {@link #POLL_MILLIS} ms.
   */
  static RunCpu watchBackends(Connection connection) throws SQLException {
    return new RunCpu(connection, 0, false);
  }

  /** Stops watching (after the child ended) and returns what was spent. */
  Spent stop() throws InterruptedException {
    running = false;
    if (poller != null) {
      poller.interrupt();
      poller.join();
    }
    synchronized (backends) {
      long pg = 0;
      for (long[] b : backends.values()) {
        pg += b[1] - b[0];
      }
      // a server on another machine: no backend's /proc entry was ever readable
      return new Spent(jvmLast, backendsRead == 0 && backendsUnread > 0 ? -1 : pg);
    }
  }

  /**
   * The statements this watch ran so far, each a transaction of the watched database ({@code
   * pg_stat_database.xact_commit} counts them).
   */
  long queries() {
    synchronized (backends) {
      return queries;
    }
  }

  private void pollLoop() {
    while (running) {
      try {
        Thread.sleep(POLL_MILLIS);
        poll();
      } catch (InterruptedException e) {
        return;
      } catch (SQLException e) {
        throw new IllegalStateException("reading pg_stat_activity: " + e, e);
      }
    }
  }

  /**
   * The query of {@code columns} from pg_stat_activity for the sessions of this database that pass
   * {@code condition}, the caller's own left out.
   */
  static String otherSessions(String columns, String condition) {
    return "select "
        + columns
        + " from pg_stat_activity where datname = current_database() and "
        + condition
        + " and pid <> pg_backend_pid()";
  }

  /** Reads the CPU time of the process and of every backend now. */
  void poll() throws SQLException {
    long jvm = pid > 0 ? ProcStat.cpuNanos(pid) : 0;
    try (Statement s = connection.createStatement();
        ResultSet r =
            s.executeQuery(
                otherSessions("pid, backend_start", "backend_type = 'client backend'"))) {
      synchronized (backends) {
        queries++;
        if (jvm >= 0) {
          jvmLast = jvm;
        }
        while (r.next()) {
          int backend = r.getInt(1);
          long cpu = ProcStat.cpuNanos(backend);
          if (cpu < 0) {
            backendsUnread++; // gone since the query, or not on this machine
            continue;
          }
          backendsRead++;
          long[] b = backends.get(backend);
          if (b == null) {
            boolean newer = r.getTimestamp(2).after(began);
            backends.put(backend, new long[] {newer ? 0 : cpu, cpu});
          } else {
            b[1] = cpu;
          }
        }
      }
    }
  }

  @Override
  public void close() throws SQLException {
    running = false;
    if (poller != null) {
      poller.interrupt();
      connection.close();
    }
  }
}
