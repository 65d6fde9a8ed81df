package dev.fencing.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.zaxxer.hikari.HikariDataSource;
import dev.fencing.FencedQueue;
import dev.fencing.FencingException;
import dev.fencing.Job;
import dev.fencing.JobState;
import dev.fencing.postgres.PrimaryWaitingDataSource;
import dev.fencing.testkit.db.PostgresFixture;
import dev.fencing.testkit.process.PostgresServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.slf4j.LoggerFactory;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.context.event.ApplicationPreparedEvent;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;

/**
 * {@code fencing.datasource.wait-for-primary}: Spring Boot's HikariCP pool connects through a
 * {@link PrimaryWaitingDataSource} when its JDBC URL is a failover setup (several hosts, or a
 * {@code targetServerType}) or the property says true, with the pool's own settings kept, and is
 * left alone on one host without a {@code targetServerType} or when the property says false; a pool
 * so wired recovers when its server stops and starts again.
 */
class PoolWaitsForThePrimaryTest {

  private static final String WIRING = "dev.fencing.spring.internal.PrimaryWaitingPools";

  /** An application with the queue and no handler. */
  @Configuration(proxyBeanMethods = false)
  @EnableAutoConfiguration
  static class QueueOnly {}

  @ParameterizedTest(name = "{0}, wait-for-primary={1}: waits {2}")
  @CsvSource({
    "several hosts, , true",
    "target server type, , true",
    "one host, , false",
    "one host, true, true",
    "several hosts, false, false",
  })
  void thePoolWaitsForThePrimaryOnAFailoverUrlOrWhenToldAndTheQueueRunsThroughIt(
      String url, @Nullable String waitForPrimary, boolean waits) {
    PostgresFixture.Database db = Apps.db();
    String jdbcUrl =
        switch (url) {
          case "several hosts" -> severalHosts(db.jdbcUrl());
          case "target server type" ->
              db.jdbcUrl() + (db.jdbcUrl().contains("?") ? "&" : "?") + "targetServerType=primary";
          default -> db.jdbcUrl();
        };
    List<String> props = new ArrayList<>(Apps.dataSource(jdbcUrl, db.user(), db.password()));
    props.add("fencing.schema=" + db.freshSchema("waiting"));
    props.add("fencing.maintenance.enabled=false");
    props.add("fencing.datasource.retry-interval=100ms");
    props.add("fencing.datasource.primary-wait=20s");
    if (waitForPrimary != null) {
      props.add("fencing.datasource.wait-for-primary=" + waitForPrimary);
    }
    ListAppender<ILoggingEvent> logs = new ListAppender<>();
    try (ConfigurableApplicationContext app = start(props, logs)) {
      HikariDataSource pool = app.getBean(HikariDataSource.class);
      if (waits) {
        assertThat(pool.getDataSource()).isInstanceOf(PrimaryWaitingDataSource.class);
        PrimaryWaitingDataSource waiting = (PrimaryWaitingDataSource) pool.getDataSource();
        assertThat(waiting.getRetryIntervalMillis()).isEqualTo(100);
        assertThat(waiting.getPrimaryWaitMillis()).isEqualTo(20_000);
      } else {
        assertThat(pool.getDataSource()).isNull();
      }
      // the application's pool settings, kept
      assertThat(pool.getJdbcUrl()).isEqualTo(jdbcUrl);
      assertThat(pool.getConnectionTimeout()).isEqualTo(1_000);
      assertThat(pool.getTransactionIsolation()).isEqualTo("TRANSACTION_READ_COMMITTED");

      FencedQueue queue = app.getBean(FencedQueue.class);
      assertThat(claimAndComplete(queue)).isTrue();
      assertThat(pool.getHikariPoolMXBean().getTotalConnections()).isPositive();
    } finally {
      root().detachAppender(logs);
    }
    List<String> said =
        logs.list.stream()
            .filter(e -> e.getLoggerName().equals(WIRING))
            .map(e -> e.getLevel() + " " + e.getFormattedMessage())
            .toList();
    if (waits) {
      assertThat(said)
          .singleElement()
          .asString()
          .startsWith(
              "INFO The HikariCP pool 'dataSource' connects through PrimaryWaitingDataSource")
          .contains(waitForPrimary != null ? "wait-for-primary: true" : "wait-for-primary: unset");
    } else {
      assertThat(said).isEmpty();
    }
  }

  /**
   * On a server this test owns, through a URL that names it twice: after the server stopped (a call
   * failed) and started again, the pool connects again and the queue claims and commits. Bounded
   * waits only: how fast is fencing-postgres' {@code PrimaryWaitingDataSourceTest}'s to show.
   */
  @Test
  @Timeout(180)
  void thePoolRecoversWhenTheServerStopsAndStartsAgain() {
    try (PostgresServer pg = PostgresServer.start()) {
      List<String> props = new ArrayList<>(Apps.dataSource(severalHosts(pg.jdbcUrl()), "", ""));
      props.add("fencing.schema=waiting_restart");
      props.add("fencing.maintenance.enabled=false");
      props.add("fencing.datasource.retry-interval=100ms");
      ListAppender<ILoggingEvent> logs = new ListAppender<>();
      try (ConfigurableApplicationContext app = start(props, logs)) {
        HikariDataSource pool = app.getBean(HikariDataSource.class);
        assertThat(pool.getDataSource()).isInstanceOf(PrimaryWaitingDataSource.class);
        FencedQueue queue = app.getBean(FencedQueue.class);
        assertThat(claimAndComplete(queue)).isTrue();

        pg.stop();
        assertThatThrownBy(() -> queue.enqueue("restart", "{}"))
            .isInstanceOf(FencingException.class);
        pg.restart();

        Apps.await(
            "the queue claims and commits again",
            Duration.ofSeconds(60),
            () -> {
              try {
                return claimAndComplete(queue);
              } catch (FencingException stillDown) {
                return false;
              }
            });
        assertThat(pool.getDataSource()).isInstanceOf(PrimaryWaitingDataSource.class);
      } finally {
        root().detachAppender(logs);
      }
    }
  }

  /**
   * Enqueues a job, claims one and completes it (accepted, or it throws): whether the claimed job
   * is then completed.
   */
  private static boolean claimAndComplete(FencedQueue queue) {
    queue.enqueue("restart", "{}");
    Optional<Job> job = queue.claim("restart", "waiter", Duration.ofSeconds(30));
    if (job.isEmpty()) {
      return false;
    }
    queue.complete(job.get().lease(), "{}");
    return queue.find(job.get().lease().jobId()).orElseThrow().state() == JobState.COMPLETED;
  }

  /** {@code jdbcUrl} with its host and port named twice: a multi-host URL of one server. */
  private static String severalHosts(String jdbcUrl) {
    int from = jdbcUrl.indexOf("//") + 2;
    int to = jdbcUrl.indexOf('/', from);
    String hostAndPort = jdbcUrl.substring(from, to);
    return jdbcUrl.substring(0, to) + "," + hostAndPort + jdbcUrl.substring(to);
  }

  /**
   * Runs {@link QueueOnly} with {@code props}, the wiring's log at INFO in {@code logs} (attached
   * once Spring Boot has set its logging up, before the pool is made).
   */
  private static ConfigurableApplicationContext start(
      List<String> props, ListAppender<ILoggingEvent> logs) {
    List<String> all = new ArrayList<>(props);
    all.add("logging.level." + WIRING + "=info");
    return new SpringApplicationBuilder(QueueOnly.class)
        .web(WebApplicationType.NONE)
        .properties(all.toArray(String[]::new))
        .listeners(
            event -> {
              if (event instanceof ApplicationPreparedEvent) {
                logs.start();
                root().addAppender(logs);
              }
            })
        .run();
  }

  private static Logger root() {
    LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
    return context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
  }
}
