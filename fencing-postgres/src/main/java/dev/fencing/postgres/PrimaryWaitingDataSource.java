package dev.fencing.postgres;

import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.Objects;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * The data source to put under a connection pool on a replicated PostgreSQL (docs/HA.md): while no
 * host takes connections as the URL asks (no primary during a failover, with {@code
 * targetServerType=primary}; a node restarting), {@link #getConnection()} tries again every {@link
 * #setRetryIntervalMillis retry interval} (250 ms) for up to {@link #setPrimaryWaitMillis the
 * primary wait} (30 s), instead of failing at once; any other failure (a wrong password, no such
 * database) fails at once.
 *
 * <p>Why: a pool that is refused retries on its own schedule. HikariCP (since 5.0) sleeps 10 ms
 * after its first failed attempt and doubles the sleep after each, up to 5 s, whatever its
 * settings; so from about 5 s into a failover its attempts are 5 s apart, and a primary that
 * appears just after one waits up to 5 s for the next. Under this data source the pool's attempt
 * waits for the primary itself and gets a connection within a retry interval of the new primary
 * taking connections; the pool sees one slow attempt, not a run of failures.
 *
 * <p>With HikariCP, programmatically: {@code config.setDataSource(new
 * PrimaryWaitingDataSource(pgSimpleDataSource))}; or by name, as properties allow ({@code
 * dataSourceClassName=dev.fencing.postgres.PrimaryWaitingDataSource} and the data source properties
 * {@code url}, {@code user} and {@code password}, and {@code primaryWaitMillis} and {@code
 * retryIntervalMillis} if not the defaults). The pool's connection timeout still bounds how long a
 * caller waits for a connection; the login timeout the pool sets (HikariCP: its connection timeout)
 * bounds each attempt.
 *
 * <p>Each retry is one connection attempt of the driver (to every host of the URL, in turn, until
 * one is the primary): while a replica answers, a login on it every retry interval per pool.
 *
 * @since 0.1
 */
public final class PrimaryWaitingDataSource implements DataSource {

  /** The default {@link #setPrimaryWaitMillis primary wait}: 30 s. */
  public static final long DEFAULT_PRIMARY_WAIT_MILLIS = 30_000;

  /** The default {@link #setRetryIntervalMillis retry interval}: 250 ms. */
  public static final long DEFAULT_RETRY_INTERVAL_MILLIS = 250;

  private final DataSource target;

  /** The driver's connections this one makes itself, configured by {@link #setUrl} and others. */
  private final @Nullable DriverSource own;

  private volatile long primaryWaitMillis = DEFAULT_PRIMARY_WAIT_MILLIS;
  private volatile long retryIntervalMillis = DEFAULT_RETRY_INTERVAL_MILLIS;

  /**
   * A data source of the PostgreSQL driver (pgjdbc), configured by {@link #setUrl}, {@link
   * #setUser} and {@link #setPassword}: for a pool that makes its data source from a class name and
   * properties.
   */
  public PrimaryWaitingDataSource() {
    this.own = new DriverSource();
    this.target = own;
  }

  /**
   * Connections of {@code target} (pgjdbc's {@code PGSimpleDataSource}, say, on a multi-host URL
   * with {@code targetServerType=primary}), waited for.
   *
   * @throws NullPointerException if {@code target} is null
   */
  public PrimaryWaitingDataSource(DataSource target) {
    this.target = Objects.requireNonNull(target, "target");
    this.own = null;
  }

  /**
   * The driver's URL, e.g. {@code
   * jdbc:postgresql://h1:5432,h2:5432/app?targetServerType=primary&connectTimeout=2}.
   *
   * @throws IllegalStateException if this data source was given a target
   * @throws IllegalArgumentException if it is not a URL of the PostgreSQL driver
   */
  public void setUrl(String url) {
    DriverSource source = own("url");
    if (!source.driver.acceptsURL(url)) {
      throw new IllegalArgumentException("not a URL of the PostgreSQL driver (jdbc:postgresql:)");
    }
    source.url = url;
  }

  /**
   * The user to log in as, if the URL does not say.
   *
   * @throws IllegalStateException if this data source was given a target
   */
  public void setUser(String user) {
    own("user").user = user;
  }

  /**
   * The password, if the URL does not say.
   *
   * @throws IllegalStateException if this data source was given a target
   */
  public void setPassword(String password) {
    own("password").password = password;
  }

  /**
   * How long one {@link #getConnection()} keeps trying while every attempt fails as a connection
   * failure (SQLSTATE class 08, e.g. pgjdbc's "Could not find a server with specified
   * targetServerType", a refused connection) or while the server cannot take connections yet or any
   * more (57P01-57P03). Then the last failure is thrown. 0 tries once. Default 30 s, about what a
   * Patroni failover with its default {@code ttl} (30 s) takes; a longer outage costs a pool only a
   * short sleep between two waits (HikariCP: 10 ms after the first, doubling).
   *
   * @throws IllegalArgumentException if negative
   */
  public void setPrimaryWaitMillis(long millis) {
    if (millis < 0) {
      throw new IllegalArgumentException(
          "primaryWaitMillis must not be negative, but was " + millis);
    }
    this.primaryWaitMillis = millis;
  }

  /** How long one {@link #getConnection()} keeps trying; see {@link #setPrimaryWaitMillis}. */
  public long getPrimaryWaitMillis() {
    return primaryWaitMillis;
  }

  /**
   * The pause between two attempts while waiting (default 250 ms): the longest a new primary waits
   * for this data source's next attempt.
   *
   * @throws IllegalArgumentException if not between 1 and 60,000
   */
  public void setRetryIntervalMillis(long millis) {
    if (millis < 1 || millis > 60_000) {
      throw new IllegalArgumentException(
          "retryIntervalMillis must be between 1 and 60000, but was " + millis);
    }
    this.retryIntervalMillis = millis;
  }

  /** The pause between two attempts; see {@link #setRetryIntervalMillis}. */
  public long getRetryIntervalMillis() {
    return retryIntervalMillis;
  }

  @Override
  public Connection getConnection() throws SQLException {
    return waitFor(target::getConnection);
  }

  @Override
  public Connection getConnection(String user, String password) throws SQLException {
    return waitFor(() -> target.getConnection(user, password));
  }

  /** One connection attempt of the target. */
  private interface Attempt {
    Connection connect() throws SQLException;
  }

  private Connection waitFor(Attempt attempt) throws SQLException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(primaryWaitMillis);
    long interval = TimeUnit.MILLISECONDS.toNanos(retryIntervalMillis);
    while (true) {
      try {
        return attempt.connect();
      } catch (SQLException e) {
        long left = deadline - System.nanoTime();
        if (left <= 0 || !worthWaiting(e)) {
          throw e;
        }
        try {
          TimeUnit.NANOSECONDS.sleep(Math.min(left, interval));
        } catch (InterruptedException interrupted) {
          Thread.currentThread().interrupt();
          throw e;
        }
      }
    }
  }

  /**
   * Whether {@code failure} (or a cause) says no server takes connections as asked now: SQLSTATE
   * class 08, or 57P01-57P03 (shut down, crashed, cannot connect now).
   */
  static boolean worthWaiting(Throwable failure) {
    Throwable t = failure;
    for (int depth = 0; t != null && depth < 10; depth++, t = t.getCause()) {
      if (t instanceof SQLException sql && sql.getSQLState() != null) {
        String state = sql.getSQLState();
        if (state.startsWith("08")
            || state.equals("57P01")
            || state.equals("57P02")
            || state.equals("57P03")) {
          return true;
        }
      }
    }
    return false;
  }

  private DriverSource own(String property) {
    if (own == null) {
      throw new IllegalStateException(
          property + " is the target's to set: this data source was given a target");
    }
    return own;
  }

  @Override
  public @Nullable PrintWriter getLogWriter() throws SQLException {
    return target.getLogWriter();
  }

  @Override
  public void setLogWriter(@Nullable PrintWriter out) throws SQLException {
    target.setLogWriter(out);
  }

  /** Sets the target's login timeout: it bounds each attempt, not the wait. */
  @Override
  public void setLoginTimeout(int seconds) throws SQLException {
    target.setLoginTimeout(seconds);
  }

  @Override
  public int getLoginTimeout() throws SQLException {
    return target.getLoginTimeout();
  }

  @Override
  public Logger getParentLogger() throws SQLFeatureNotSupportedException {
    return target.getParentLogger();
  }

  @Override
  public <T> T unwrap(Class<T> type) throws SQLException {
    return type.isInstance(this) ? type.cast(this) : target.unwrap(type);
  }

  @Override
  public boolean isWrapperFor(Class<?> type) throws SQLException {
    return type.isInstance(this) || target.isWrapperFor(type);
  }

  @Override
  public String toString() {
    return "PrimaryWaitingDataSource[wait "
        + primaryWaitMillis
        + " ms, every "
        + retryIntervalMillis
        + " ms, "
        + (own == null ? target.getClass().getName() : "pgjdbc")
        + "]";
  }

  /** Connections of pgjdbc's driver on a URL, user and password: what the no-arg form wraps. */
  private static final class DriverSource implements DataSource {
    final org.postgresql.Driver driver = new org.postgresql.Driver();
    volatile @Nullable String url;
    volatile @Nullable String user;
    volatile @Nullable String password;
    private volatile int loginTimeout;
    private volatile @Nullable PrintWriter logWriter;

    @Override
    public Connection getConnection() throws SQLException {
      return getConnection(user, password);
    }

    @Override
    public Connection getConnection(@Nullable String user, @Nullable String password)
        throws SQLException {
      String at = url;
      if (at == null) {
        throw new SQLException("PrimaryWaitingDataSource: no url set (setUrl)");
      }
      Properties properties = new Properties();
      if (user != null) {
        properties.setProperty("user", user);
      }
      if (password != null) {
        properties.setProperty("password", password);
      }
      if (loginTimeout > 0) {
        properties.setProperty("loginTimeout", Integer.toString(loginTimeout));
      }
      Connection c = driver.connect(at, properties);
      if (c == null) { // setUrl took only what the driver accepts
        throw new SQLException("PrimaryWaitingDataSource: not a URL of the PostgreSQL driver");
      }
      return c;
    }

    @Override
    public @Nullable PrintWriter getLogWriter() {
      return logWriter;
    }

    @Override
    public void setLogWriter(@Nullable PrintWriter out) {
      this.logWriter = out;
    }

    @Override
    public void setLoginTimeout(int seconds) {
      this.loginTimeout = seconds;
    }

    @Override
    public int getLoginTimeout() {
      return loginTimeout;
    }

    @Override
    public Logger getParentLogger() {
      return Logger.getLogger("org.postgresql");
    }

    @Override
    public <T> T unwrap(Class<T> type) throws SQLException {
      throw new SQLException("not a wrapper of " + type.getName());
    }

    @Override
    public boolean isWrapperFor(Class<?> type) {
      return false;
    }
  }
}
