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
 * backends (utime + stime from {@code /proc/<pid>/stat}), and what its active backends wait on
 * ({@code pg_stat_activity}, sampled every {@link #SAMPLE_MILLIS} ms).
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
  private final Map<Integer, Long> startCpu;
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
    this.startCpu = backendCpu();
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
    Map<Integer, Long> endCpu = backendCpu();
    long cpuNanos = 0;
    boolean local = !startCpu.isEmpty();
    for (Map.Entry<Integer, Long> e : endCpu.entrySet()) {
      Long before = startCpu.get(e.getKey());
      if (before != null && before >= 0 && e.getValue() >= 0) {
        cpuNanos += e.getValue() - before;
      } else if (e.getValue() < 0) {
        local = false;
      }
    }
    // the sampler's and this observer's own statements are transactions too
    long transactions = xacts() - startXacts - ownQueries - 2;
    synchronized (waits) {
      return new Window(transactions, local ? cpuNanos : -1, samples, active, Map.copyOf(waits));
    }
  }

  private void sampleLoop() {
    while (running) {
      try {
        sampleOnce();
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
                "select coalesce(wait_event_type || ':' || wait_event, '') from pg_stat_activity"
                    + " where datname = current_database() and state = 'active'"
                    + " and pid <> pg_backend_pid()")) {
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

  /**
   * CPU nanoseconds per client backend of this database; -1 for one whose /proc entry is
   * unreadable.
   */
  private Map<Integer, Long> backendCpu() throws SQLException {
    Map<Integer, Long> cpu = new HashMap<>();
    try (Statement s = connection.createStatement();
        ResultSet r =
            s.executeQuery(
                "select pid from pg_stat_activity where datname = current_database()"
                    + " and backend_type = 'client backend' and pid <> pg_backend_pid()")) {
      while (r.next()) {
        int pid = r.getInt(1);
        cpu.put(pid, ProcStat.cpuNanos(pid));
      }
    }
    return cpu;
  }

  @Override
  public void close() throws SQLException {
    running = false;
    connection.close();
  }
}
