package dev.fencing.benchmarks;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import javax.sql.DataSource;

/**
 * Watches one database of a PostgreSQL server on this machine over a measured window: committed
 * transactions ({@code pg_stat_database.xact_commit}), the CPU time of the database's client
 * backends ({@link RunCpu}: utime + stime from {@code /proc/<pid>/stat}, a backend that connects
 * during the window counted from zero, one that ends keeping its last reading), and what its active
 * backends wait on ({@code pg_stat_activity}, sampled every {@link #SAMPLE_MILLIS} ms).
 *
 * <p>Only the backends of this database are counted, so that other databases on a shared server do
 * not show up; the server's background processes (WAL writer, checkpointer, autovacuum) are left
 * out. A server that is not on this machine gives a CPU time of -1.
 */
final class PgObserver implements AutoCloseable {

  static final long SAMPLE_MILLIS = 20;

  /** What happened in the window. {@code waits} counts samples by "type:event". */
  record Window(
      long transactions, long backendCpuNanos, long samples, long active, Map<String, Long> waits) {

    /** Samples of backends waiting on a lock (heavyweight or lightweight), of all samples. */
    long lockWaitSamples() {
      return waits.entrySet().stream()
          .filter(e -> e.getKey().startsWith("Lock:") || e.getKey().startsWith("LWLock:"))
          .mapToLong(Map.Entry::getValue)
          .sum();
    }

    /**
     * The three most frequent waits of any kind with their samples, as {@code "(a 3, b 2, c 1) "},
     * or empty when nothing waited.
     */
    String topWaits() {
      StringBuilder s = new StringBuilder();
      waits.entrySet().stream()
          .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
          .limit(3)
          .forEach(
              e ->
                  s.append(s.isEmpty() ? "(" : ", ")
                      .append(e.getKey())
                      .append(' ')
                      .append(e.getValue()));
      return s.isEmpty() ? "" : s.append(") ").toString();
    }
  }

  private final Connection connection;
  private final long startXacts;
  private final RunCpu cpu;
  private final Thread sampler;
  private final Map<String, Long> waits = new TreeMap<>();
  private long samples;
  private long active;
  private long ownQueries;
  private volatile boolean running = true;

  private PgObserver(DataSource ds) throws SQLException {
    this.connection = ds.getConnection();
    this.connection.setAutoCommit(true);
    this.startXacts = xacts();
    this.cpu = RunCpu.watchBackends(connection);
    this.sampler = Thread.ofPlatform().name("pg-observer").daemon().start(this::sampleLoop);
  }

  /** Starts watching the database {@code ds} connects to. */
  static PgObserver start(DataSource ds) throws SQLException {
    return new PgObserver(ds);
  }

  /** Ends the window and returns what it saw. */
  Window stop() throws SQLException, InterruptedException {
    running = false;
    sampler.join();
    cpu.poll();
    long cpuNanos = cpu.stop().pgNanos();
    // the sampler's and this observer's own statements are transactions too
    long transactions = xacts() - startXacts - ownQueries - cpu.queries() - 2;
    synchronized (waits) {
      return new Window(transactions, cpuNanos, samples, active, Map.copyOf(waits));
    }
  }

  private void sampleLoop() {
    long every = RunCpu.POLL_MILLIS / SAMPLE_MILLIS;
    for (long n = 1; running; n++) {
      try {
        sampleOnce();
        if (n % every == 0) {
          cpu.poll(); // on this thread, the one that uses the connection while it runs
        }
        Thread.sleep(SAMPLE_MILLIS);
      } catch (SQLException e) {
        throw new IllegalStateException("sampling pg_stat_activity: " + e, e);
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  private void sampleOnce() throws SQLException {
    try (Statement s = connection.createStatement();
        ResultSet r =
            s.executeQuery(
                RunCpu.otherSessions(
                    "coalesce(wait_event_type || ':' || wait_event, '')", "state = 'active'"))) {
      Map<String, Long> seen = new HashMap<>();
      long activeNow = 0;
      while (r.next()) {
        activeNow++;
        String wait = r.getString(1);
        if (!wait.isEmpty()) {
          seen.merge(wait, 1L, Long::sum);
        }
      }
      synchronized (waits) {
        ownQueries++;
        samples++;
        active += activeNow;
        seen.forEach((k, v) -> waits.merge(k, v, Long::sum));
      }
    }
  }

  private long xacts() throws SQLException {
    try (Statement s = connection.createStatement();
        ResultSet r =
            s.executeQuery(
                "select xact_commit from pg_stat_database where datname = current_database()")) {
      r.next();
      return r.getLong(1);
    }
  }

  @Override
  public void close() throws SQLException {
    running = false;
    connection.close();
  }
}
