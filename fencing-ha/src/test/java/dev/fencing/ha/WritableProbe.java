package dev.fencing.ha;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Properties;

/**
 * When a node takes its first write, to 10 ms: a session opened on the node while it is a replica
 * (a hot standby's sessions live on through its promotion) runs {@code select txid_current()},
 * which fails during recovery, every 10 ms until it succeeds. Patroni's {@code GET /primary}, which
 * {@link PatroniCluster#awaitNewLeader} polls every 200 ms, answers a loop later.
 */
final class WritableProbe implements AutoCloseable {

  private static final Duration EVERY = Duration.ofMillis(10);

  private final PatroniCluster cluster;
  private final int node;
  private Connection session;

  /** Opens a session on node {@code node} of {@code cluster}, which should be a replica now. */
  WritableProbe(PatroniCluster cluster, int node) {
    this.cluster = cluster;
    this.node = node;
    this.session = open();
  }

  /**
   * Waits until the node takes a write and returns the wall-clock time it first did.
   *
   * @throws AssertionError if it did not within {@code within}
   */
  long awaitWritable(Duration within) {
    long deadline = System.nanoTime() + within.toNanos();
    while (System.nanoTime() < deadline) {
      if (session == null) {
        session = reopen();
      }
      if (session != null) {
        try (Statement s = session.createStatement()) {
          s.execute("select txid_current()");
          return System.currentTimeMillis();
        } catch (SQLException inRecovery) {
          if (isClosed()) {
            // the node went away under the probe (a restart): a new session will tell
            close();
            session = null;
          }
        }
      }
      OsProcesses.pause(EVERY);
    }
    throw new AssertionError("node " + node + " took no write within " + within);
  }

  private boolean isClosed() {
    try {
      return session.isClosed() || !session.isValid(1);
    } catch (SQLException e) {
      return true;
    }
  }

  private Connection reopen() {
    try {
      return open();
    } catch (AssertionError notYet) {
      return null;
    }
  }

  private Connection open() {
    Properties props = new Properties();
    props.setProperty("user", cluster.user());
    props.setProperty("password", cluster.password());
    props.setProperty("socketTimeout", "5");
    try {
      return DriverManager.getConnection(cluster.nodeUrl(node), props);
    } catch (SQLException e) {
      throw new AssertionError("no session on node " + node + ": " + e, e);
    }
  }

  @Override
  public void close() {
    try {
      if (session != null) {
        session.close();
      }
    } catch (SQLException e) {
      // the probe is done
    }
  }
}
