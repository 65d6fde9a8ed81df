package dev.fencing.ha;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.fencing.postgres.PrimaryWaitingDataSource;
import dev.fencing.testkit.db.PostgresFixture;
import java.time.Duration;
import javax.sql.DataSource;

/**
 * The pool docs/HA.md advises on a replicated PostgreSQL: HikariCP with a 2 s connection timeout on
 * {@link PrimaryWaitingDataSource} over pgjdbc's data source on the multi-host URL ({@code
 * targetServerType=primary}).
 */
final class AdvisedPool {

  /** HikariCP's connection timeout that docs/HA.md advises. */
  static final Duration CONNECTION_TIMEOUT = Duration.ofSeconds(2);

  private AdvisedPool() {}

  /** The advised pool of at most {@code maxSize} connections to {@code cluster}'s primary. */
  static DataSource of(PatroniCluster cluster, int maxSize) {
    PostgresFixture.Database db =
        new PostgresFixture.Database(
            cluster.jdbcUrl(), cluster.user(), cluster.password(), "patroni");
    return hikari(
        new PrimaryWaitingDataSource(db.dataSource()), maxSize, CONNECTION_TIMEOUT, "advised");
  }

  /**
   * HikariCP on {@code source}: at most {@code maxSize} connections, none kept idle, waiting up to
   * {@code connectionTimeout} for one; it starts without a connection, and hands out connections at
   * READ COMMITTED (named, not detected: see the test kit's pools).
   */
  static HikariDataSource hikari(
      DataSource source, int maxSize, Duration connectionTimeout, String name) {
    HikariConfig config = new HikariConfig();
    config.setDataSource(source);
    config.setMaximumPoolSize(maxSize);
    config.setMinimumIdle(0);
    config.setConnectionTimeout(connectionTimeout.toMillis());
    config.setInitializationFailTimeout(-1);
    config.setPoolName(name);
    config.setTransactionIsolation("TRANSACTION_READ_COMMITTED");
    return new HikariDataSource(config);
  }
}
