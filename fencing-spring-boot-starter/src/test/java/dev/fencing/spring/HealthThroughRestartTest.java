package dev.fencing.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.FencedQueue;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
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
class HealthThroughRestartTest {

  @Test
  void downWhileTheDatabaseIsStoppedAndUpWhenItReturns() throws Exception {
    Path data = Files.createTempDirectory("fencing-health-pg");
    int port = freePort();
    EmbeddedPostgres pg = start(data, port);
    try {
      List<String> props =
          new java.util.ArrayList<>(Apps.dataSource(pg.getJdbcUrl("postgres", "postgres"), "", ""));
      props.addAll(
          List.of(
              "fencing.schema=health",
              "fencing.health.timeout=3s",
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

        pg.close();
        Apps.await(
            "DOWN with the renewals failing",
            Duration.ofSeconds(30),
            () -> {
              Health h = indicator.health();
              return h.getStatus().equals(Status.DOWN)
                  && h.getDetails().containsKey("error")
                  && List.of("slow").equals(h.getDetails().get("renewalsFailing"));
            });

        pg = start(data, port);
        Apps.await(
            "UP again",
            Duration.ofSeconds(30),
            () -> indicator.health().getStatus().equals(Status.UP));
      }
    } finally {
      pg.close();
      try (Stream<Path> files = Files.walk(data)) {
        files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  private static EmbeddedPostgres start(Path data, int port) throws IOException {
    return EmbeddedPostgres.builder()
        .setDataDirectory(data)
        .setCleanDataDirectory(false)
        .setPort(port)
        .start();
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }
}
