package example.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.jayway.jsonpath.JsonPath;
import dev.fencing.JobState;
import dev.fencing.postgres.JobDetails;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.testkit.db.PostgresFixture;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Runs the application of docs/SPRING.md as a user deploys it: its Spring Boot jar in a JVM of its
 * own, on this project's Spring Boot line (whose dependency management wins, as in any Boot
 * application), against a real PostgreSQL. It must start, run a job through its handler bean,
 * answer health with {@code fencing} UP, and stop on SIGTERM without a warning, an error or a stack
 * trace.
 */
class ApplicationIT {

  private static final Duration START = Duration.ofSeconds(90);
  private static final Duration STOP = Duration.ofSeconds(60);

  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @Test
  void startsRunsAJobThroughTheHandlerBeanIsHealthyAndStopsCleanly() throws Exception {
    PostgresFixture.Database db = PostgresFixture.urlOrEmbedded();
    String line = System.getProperty("boot.line");
    String schema = db.freshSchema("boot_" + line.replace('.', '_'));
    int port = freePort();
    Path log = Path.of(System.getProperty("app.log"));
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-jar");
    command.add(System.getProperty("app.jar"));
    command.add("--server.port=" + port);
    command.add("--spring.datasource.url=" + db.jdbcUrl());
    command.add("--spring.datasource.username=" + db.user());
    command.add("--spring.datasource.password=" + db.password());
    command.add("--fencing.schema=" + schema);
    Process app =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    String output;
    try {
      awaitLine(app, log, "Started Application");
      URI base = URI.create("http://127.0.0.1:" + port);

      HttpResponse<String> signup =
          http.send(
              HttpRequest.newBuilder(base.resolve("/signup?email=ada@example.com"))
                  .POST(HttpRequest.BodyPublishers.noBody())
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(signup.statusCode()).as(signup.body()).isEqualTo(200);
      long id = Long.parseLong(signup.body().strip());

      JobDetails job = awaitCompleted(db, schema, id);
      assertThat(job.result()).contains("\"sent\"");
      assertThat(job.epoch()).isEqualTo(1);

      HttpResponse<String> health = get(base.resolve("/actuator/health"));
      assertThat(health.statusCode()).as(health.body()).isEqualTo(200);
      assertThat(JsonPath.<String>read(health.body(), "$.components.fencing.status"))
          .as(health.body())
          .isEqualTo("UP");
      HttpResponse<String> readiness = get(base.resolve("/actuator/health/readiness"));
      assertThat(readiness.statusCode()).as(readiness.body()).isEqualTo(200);
      assertThat(JsonPath.<String>read(readiness.body(), "$.components.fencing.status"))
          .as(readiness.body())
          .isEqualTo("UP");
    } finally {
      app.destroy(); // SIGTERM, as an orchestrator stops it
      if (!app.waitFor(STOP.toSeconds(), TimeUnit.SECONDS)) {
        app.destroyForcibly();
        fail("the application did not stop within %s of SIGTERM:%n%s", STOP, read(log));
      }
      output = read(log);
      db.dropSchema(schema);
    }
    System.out.println("Spring Boot " + line + " application printed:\n" + output);
    assertThat(output)
        .as("what the application printed")
        .contains("Started Application")
        .doesNotContain(" WARN ", " ERROR ", "\tat ", "Exception", "jOOQ", "@@@@");
    assertThat(output.lines().filter(l -> l.contains(" INFO ") && l.contains("fencing: owner ")))
        .as("the starter's lines: one when the runtimes started, one when they had drained")
        .hasSize(2)
        .last()
        .asString()
        .contains(" drained 1 runtime [emails] in ", "the listening connection is closed");
  }

  private JobDetails awaitCompleted(PostgresFixture.Database db, String schema, long id)
      throws InterruptedException {
    PostgresFencing fencing =
        PostgresFencing.builder(db.dataSource()).schema(schema).install(false).build();
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    Optional<JobDetails> job = Optional.empty();
    while (System.nanoTime() < deadline) {
      job = fencing.admin().job(id);
      if (job.isPresent() && job.get().state() == JobState.COMPLETED) {
        return job.get();
      }
      Thread.sleep(100);
    }
    return fail("job %d did not complete within 30 s: %s", id, job);
  }

  private HttpResponse<String> get(URI uri) throws IOException, InterruptedException {
    return http.send(
        HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static void awaitLine(Process app, Path log, String text)
      throws IOException, InterruptedException {
    long deadline = System.nanoTime() + START.toNanos();
    while (System.nanoTime() < deadline) {
      if (read(log).contains(text)) {
        return;
      }
      if (!app.isAlive()) {
        fail("the application exited with %d before '%s':%n%s", app.exitValue(), text, read(log));
      }
      Thread.sleep(100);
    }
    fail("no '%s' within %s:%n%s", text, START, read(log));
  }

  private static String read(Path log) throws IOException {
    return Files.exists(log) ? Files.readString(log, StandardCharsets.UTF_8) : "";
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }
}
