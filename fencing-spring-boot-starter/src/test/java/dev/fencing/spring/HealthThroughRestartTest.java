package dev.fencing.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.FencedQueue;
import dev.fencing.testkit.process.PostgresServer;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The health indicator on a PostgreSQL this test owns (an embedded server on its own data directory
 * and port, whatever {@code FENCING_JDBC_URL} says): DOWN while the server is stopped, with the
 * renewals of the job in flight failing, and UP when it is back on the same port.
 */
@Timeout(120)
class HealthThroughRestartTest {

  @Test
  void downWhileTheDatabaseIsStoppedAndUpWhenItReturns() throws Exception {
    try (PostgresServer pg = PostgresServer.start()) {
      List<String> props = new java.util.ArrayList<>(Apps.dataSource(pg.jdbcUrl(), "", ""));
      props.addAll(
          List.of(
              "fencing.schema=health",
              "fencing.health.timeout=2s",
              "spring.datasource.hikari.connection-timeout=500",
              "fencing.queues.slow.lease=1500ms",
              "fencing.drain-timeout=0s",
              "test.pause=60s"));
      try (ConfigurableApplicationContext app =
          new SpringApplicationBuilder(SlowApp.class)
              .web(WebApplicationType.NONE)
              .properties(props.toArray(String[]::new))
              .run()) {
        HealthIndicator indicator = app.getBean("fencingHealthIndicator", HealthIndicator.class);
        SlowApp.Slow slow = app.getBean(SlowApp.Slow.class);
        long id = app.getBean(FencedQueue.class).enqueue("slow", "{}");
        Apps.await("the job started", Duration.ofSeconds(10), () -> slow.started.contains(id));
        assertThat(indicator.health().getStatus()).isEqualTo(Status.UP);

        pg.stop();
        Apps.await(
            "DOWN with the renewals failing",
            Duration.ofSeconds(30),
            () -> {
              Health h = indicator.health();
              return h.getStatus().equals(Status.DOWN)
                  && h.getDetails().containsKey("error")
                  && List.of("slow").equals(h.getDetails().get("renewalsFailing"));
            });

        pg.restart();
        Apps.await(
            "UP again",
            Duration.ofSeconds(30),
            () -> indicator.health().getStatus().equals(Status.UP));

        // a server that takes connections and never answers: the check's own timeout says DOWN
        pg.freeze();
        try {
          long asked = System.nanoTime();
          Health hung = indicator.health();
          assertThat(hung.getStatus()).isEqualTo(Status.DOWN);
          assertThat(hung.getDetails())
              .containsEntry("error", "the database did not answer within PT2S");
          assertThat(Duration.ofNanos(System.nanoTime() - asked)).isLessThan(Duration.ofSeconds(4));
        } finally {
          pg.thaw();
        }
        Apps.await(
            "UP once the server runs again",
            Duration.ofSeconds(30),
            () -> indicator.health().getStatus().equals(Status.UP));
      }
    }
  }
}
