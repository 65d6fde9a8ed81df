package dev.fencing.spring.internal;

import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.util.DriverDataSource;
import dev.fencing.postgres.PrimaryWaitingDataSource;
import dev.fencing.spring.FencingProperties;
import java.util.Properties;
import javax.sql.DataSource;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.postgresql.Driver;
import org.postgresql.PGProperty;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;

/**
 * Puts a {@link PrimaryWaitingDataSource} under each HikariCP pool bean, as {@code
 * fencing.datasource.*} says ({@link FencingProperties.Datasource}), before the pool starts: a
 * {@link HikariDataSource} made with its no-arg constructor (Spring Boot's) starts at its first
 * {@code getConnection}, so its {@code setDataSource} still takes here. It acts before the bean's
 * initialization, after the ordered post-processors that set the pool's properties (Spring Boot's
 * binding of {@code spring.datasource.hikari.*} and its connection details) and before any that
 * wrap the pool in a proxy afterwards.
 *
 * <p>Under it goes the data source HikariCP would make itself from the same settings (its {@link
 * DriverDataSource} on the JDBC URL, driver class, data source properties and credentials), so the
 * driver gets what it got without this; HikariCP keeps every setting and passes its credentials at
 * each connection as before. The JDBC URL stays set (HikariCP ignores it beside a data source, and
 * Spring Boot's metadata still reads it). Each pool that gets one is logged once, at INFO.
 */
final class PrimaryWaitingPools implements BeanPostProcessor {

  private static final Log LOG = LogFactory.getLog(PrimaryWaitingPools.class);

  private final ObjectProvider<FencingProperties> properties;

  PrimaryWaitingPools(ObjectProvider<FencingProperties> properties) {
    this.properties = properties;
  }

  @Override
  public Object postProcessBeforeInitialization(Object bean, String beanName) {
    if (bean instanceof HikariDataSource pool) {
      wrap(pool, beanName, properties.getObject().datasource());
    }
    return bean;
  }

  /** Puts a waiting data source under {@code pool} if {@code settings} and the pool say so. */
  static void wrap(HikariDataSource pool, String beanName, FencingProperties.Datasource settings) {
    Boolean forced = settings.waitForPrimary();
    if (Boolean.FALSE.equals(forced) || pool.getDataSource() instanceof PrimaryWaitingDataSource) {
      return;
    }
    String cannot = cannot(pool);
    if (cannot != null) {
      if (forced != null) {
        LOG.warn(
            "fencing.datasource.wait-for-primary=true, but the HikariCP pool '"
                + beanName
                + "' is left alone: "
                + cannot);
      }
      return;
    }
    String jdbcUrl = pool.getJdbcUrl();
    String why = forced != null ? "true" : failover(jdbcUrl, pool.getDataSourceProperties());
    if (why == null) {
      return;
    }
    PrimaryWaitingDataSource waiting =
        new PrimaryWaitingDataSource(
            new DriverDataSource(
                jdbcUrl,
                pool.getDriverClassName(),
                pool.getDataSourceProperties(),
                pool.getUsername(),
                pool.getPassword()));
    waiting.setPrimaryWaitMillis(settings.primaryWait().toMillis());
    waiting.setRetryIntervalMillis(settings.retryInterval().toMillis());
    pool.setDataSource(waiting);
    LOG.info(
        "The HikariCP pool '"
            + beanName
            + "' connects through "
            + waiting
            + ": each connection attempt waits for a primary (fencing.datasource.wait-for-primary: "
            + why
            + ")");
  }

  /** Why {@code pool} cannot take a data source now, or null when it can. */
  private static @Nullable String cannot(HikariDataSource pool) {
    DataSource given = pool.getDataSource();
    if (given != null) {
      return "it was given a DataSource of its own (" + given.getClass().getName() + ")";
    }
    if (pool.isRunning() || pool.isClosed()) {
      return "it has started (its settings are sealed)";
    }
    if (pool.getJdbcUrl() == null || pool.getDataSourceClassName() != null) {
      return "it is configured by a data source class name or JNDI, not a JDBC URL";
    }
    return null;
  }

  /**
   * Why {@code jdbcUrl} with {@code dataSourceProperties} is a failover setup, as the PostgreSQL
   * driver reads them: it names several hosts or a {@code targetServerType} other than {@code any};
   * null when it is neither or not the driver's URL.
   */
  static @Nullable String failover(String jdbcUrl, Properties dataSourceProperties) {
    Properties parsed = Driver.parseURL(jdbcUrl, dataSourceProperties);
    if (parsed == null) {
      return null;
    }
    String hosts = PGProperty.PG_HOST.getOrDefault(parsed);
    if (hosts != null && hosts.contains(",")) {
      return "unset, and the JDBC URL names several hosts";
    }
    String target = PGProperty.TARGET_SERVER_TYPE.getOrDefault(parsed);
    if (target != null && !target.equalsIgnoreCase("any")) {
      return "unset, and the JDBC URL asks for targetServerType=" + target;
    }
    return null;
  }
}
