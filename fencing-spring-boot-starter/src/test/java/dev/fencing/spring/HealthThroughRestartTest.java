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
    Path data = Files.createTempDirectory("fencing-health-pg");
    int port = freePort();
    EmbeddedPostgres pg = start(data, port);
    try {
      List<String> props =
          new java.util.ArrayList<>(Apps.dataSource(pg.getJdbcUrl("postgres", "postgres"), "", ""));
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

        // a server that takes connections and never answers: the check's own timeout says DOWN
        List<Long> server = serverProcesses(data);
        signal("STOP", server);
        try {
          long asked = System.nanoTime();
          Health hung = indicator.health();
          assertThat(hung.getStatus()).isEqualTo(Status.DOWN);
          assertThat(hung.getDetails())
              .containsEntry("error", "the database did not answer within PT2S");
          assertThat(Duration.ofNanos(System.nanoTime() - asked)).isLessThan(Duration.ofSeconds(4));
        } finally {
          signal("CONT", server);
        }
        Apps.await(
            "UP once the server runs again",
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

  /** The server's postmaster (first: it spawns no backend while stopped) and its children. */
  private static List<Long> serverProcesses(Path data) throws IOException {
    long postmaster =
        Long.parseLong(Files.readAllLines(data.resolve("postmaster.pid")).getFirst().strip());
    return Stream.concat(
            Stream.of(postmaster),
            ProcessHandle.of(postmaster).orElseThrow().descendants().map(ProcessHandle::pid))
        .toList();
  }

  private static void signal(String signal, List<Long> pids) throws Exception {
    List<String> command = new java.util.ArrayList<>(List.of("kill", "-" + signal));
    pids.forEach(pid -> command.add(String.valueOf(pid)));
    Process kill = new ProcessBuilder(command).inheritIO().start();
    assertThat(kill.waitFor()).as(String.join(" ", command)).isZero();
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }
}
