package dev.fencing.postgres;

import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * Hands out real connections, the first {@code failures} of them with their server process already
 * terminated (as a restart or failover would), so their first statement fails for real. Counts the
 * connections it hands out.
 */
final class FlakyDataSource implements DataSource {

  private final DataSource real;
  private final AtomicInteger failuresLeft;
  private final AtomicInteger connections = new AtomicInteger();

  FlakyDataSource(DataSource real, int failures) {
    this.real = real;
    this.failuresLeft = new AtomicInteger(failures);
  }

  int connections() {
    return connections.get();
  }

  @Override
  public Connection getConnection() throws SQLException {
    connections.incrementAndGet();
    Connection connection = real.getConnection();
    if (failuresLeft.getAndDecrement() > 0) {
      terminate(connection);
    }
    return connection;
  }

  private void terminate(Connection victim) throws SQLException {
    int pid;
    try (Statement s = victim.createStatement();
        ResultSet rs = s.executeQuery("SELECT pg_backend_pid()")) {
      rs.next();
      pid = rs.getInt(1);
    }
    try (Connection admin = real.getConnection();
        PreparedStatement s = admin.prepareStatement("SELECT pg_terminate_backend(?, 10000)")) {
      s.setInt(1, pid);
      s.execute();
    }
  }

  @Override
  public Connection getConnection(String user, String password) throws SQLException {
    throw new SQLFeatureNotSupportedException("not in this test");
  }

  @Override
  public PrintWriter getLogWriter() throws SQLException {
    return real.getLogWriter();
  }

  @Override
  public void setLogWriter(PrintWriter out) throws SQLException {
    real.setLogWriter(out);
  }

  @Override
  public void setLoginTimeout(int seconds) throws SQLException {
    real.setLoginTimeout(seconds);
  }

  @Override
  public int getLoginTimeout() throws SQLException {
    return real.getLoginTimeout();
  }

  @Override
  public Logger getParentLogger() throws SQLFeatureNotSupportedException {
    return real.getParentLogger();
  }

  @Override
  public <T> T unwrap(Class<T> type) throws SQLException {
    throw new SQLException("not a wrapper");
  }

  @Override
  public boolean isWrapperFor(Class<?> type) {
    return false;
  }
}
