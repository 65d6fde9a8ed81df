package dev.fencing.spring.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.fencing.postgres.PrimaryWaitingDataSource;
import dev.fencing.spring.FencingProperties;
import java.time.Duration;
import java.util.Properties;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * Which pools {@link PrimaryWaitingPools} puts a {@link PrimaryWaitingDataSource} under, without a
 * database: a failover URL as the PostgreSQL driver reads it, and never a pool that has a data
 * source of its own, is configured otherwise than by a URL, or has started.
 */
class PrimaryWaitingPoolsTest {

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "jdbc:postgresql://h1:5432,h2:5432/app | | unset, and the JDBC URL names several hosts",
        "jdbc:postgresql://h1,h2/app?targetServerType=primary | | unset, and the JDBC URL names several hosts",
        "jdbc:postgresql://h1:5432/app?targetServerType=primary | | unset, and the JDBC URL asks for targetServerType=primary",
        "jdbc:postgresql://h1:5432/app | targetServerType=primary | unset, and the JDBC URL asks for targetServerType=primary",
        "jdbc:postgresql://h1:5432/app | | ",
        "jdbc:postgresql://h1:5432/app?targetServerType=any | | ",
        "jdbc:postgresql:app | | ",
        "jdbc:otherdb://h1,h2/app | | ",
      })
  void aFailoverUrlNamesSeveralHostsOrATargetServerType(
      String url, @Nullable String property, @Nullable String failover) {
    Properties properties = new Properties();
    if (property != null) {
      String[] kv = property.split("=");
      properties.setProperty(kv[0], kv[1]);
    }
    assertThat(PrimaryWaitingPools.failover(url, properties)).isEqualTo(failover);
  }

  @Test
  void onAFailoverUrlThePoolGetsOneOverTheDriverAndKeepsItsUrl() {
    try (HikariDataSource pool = pool("jdbc:postgresql://h1:5432,h2:5432/app")) {
      PrimaryWaitingPools.wrap(pool, "dataSource", settings(null));
      assertThat(pool.getDataSource()).isInstanceOf(PrimaryWaitingDataSource.class);
      assertThat(pool.getDataSource().toString()).contains("wait 30000 ms, every 250 ms");
      assertThat(pool.getJdbcUrl()).isEqualTo("jdbc:postgresql://h1:5432,h2:5432/app");
      DataSource first = pool.getDataSource();

      PrimaryWaitingPools.wrap(pool, "dataSource", settings(true));
      assertThat(pool.getDataSource()).as("not wrapped twice").isSameAs(first);
    }
  }

  @Test
  void falseLeavesAFailoverPoolAloneAndTrueWrapsOneHost() {
    try (HikariDataSource pool = pool("jdbc:postgresql://h1:5432,h2:5432/app")) {
      PrimaryWaitingPools.wrap(pool, "dataSource", settings(false));
      assertThat(pool.getDataSource()).isNull();
    }
    try (HikariDataSource pool = pool("jdbc:postgresql://h1:5432/app")) {
      PrimaryWaitingPools.wrap(pool, "dataSource", settings(null));
      assertThat(pool.getDataSource()).isNull();
      PrimaryWaitingPools.wrap(pool, "dataSource", settings(true));
      assertThat(pool.getDataSource()).isInstanceOf(PrimaryWaitingDataSource.class);
    }
  }

  @Test
  void evenTrueLeavesAPoolWithItsOwnDataSourceOrClassNameOrThatHasStartedAlone() {
    PGSimpleDataSource own = new PGSimpleDataSource();
    try (HikariDataSource given = pool("jdbc:postgresql://h1:5432,h2:5432/app");
        HikariDataSource byClassName = new HikariDataSource();
        HikariDataSource closed = pool("jdbc:postgresql://h1:5432,h2:5432/app")) {
      given.setDataSource(own);
      byClassName.setDataSourceClassName(PGSimpleDataSource.class.getName());
      closed.close();
      for (HikariDataSource pool : new HikariDataSource[] {given, byClassName, closed}) {
        PrimaryWaitingPools.wrap(pool, "dataSource", settings(true));
        PrimaryWaitingPools.wrap(pool, "dataSource", settings(null));
      }
      assertThat(given.getDataSource()).isSameAs(own);
      assertThat(byClassName.getDataSource()).isNull();
      assertThat(closed.getDataSource()).isNull();
    }
  }

  private static HikariDataSource pool(String jdbcUrl) {
    HikariDataSource pool = new HikariDataSource();
    pool.setJdbcUrl(jdbcUrl);
    pool.setTransactionIsolation("TRANSACTION_READ_COMMITTED");
    return pool;
  }

  private static FencingProperties.Datasource settings(@Nullable Boolean waitForPrimary) {
    return new FencingProperties.Datasource(
        waitForPrimary, Duration.ofSeconds(30), Duration.ofMillis(250));
  }
}
