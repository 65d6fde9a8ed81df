package example.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.jayway.jsonpath.JsonPath;
import dev.fencing.JobSnapshot;
import dev.fencing.JobState;
import dev.fencing.console.ConsolePasswords;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.postgres.admin.JobDetails;
import dev.fencing.testkit.process.Ports;
import dev.fencing.testkit.process.PostgresServer;
import java.io.IOException;
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
 * application), against a PostgreSQL this test owns (so that it can freeze it). It must start, end
 * a job whose payload does not decode FAILED at once and count it, run the next job through its
 * typed handler bean, answer health with {@code fencing} UP, answer its readiness probe
 * DOWN within the fencing indicator's timeout while PostgreSQL is frozen (Spring's {@code db}
 * indicator, left out of the group, would wait for HikariCP's 30 s), be ready again when PostgreSQL
 * runs again, and stop on SIGTERM with its drain line and without a warning, an error or a stack
 * trace.
 */
class ApplicationIT {

  private static final Duration START = Duration.ofSeconds(90);
  private static final Duration STOP = Duration.ofSeconds(60);

  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @Test
  void startsRunsAJobIsHealthyIsUnreadyWhileTheDatabaseHangsAndStopsCleanly() throws Exception {
    String line = System.getProperty("boot.line");
    PostgresServer pg = PostgresServer.start();
    Path log = Path.of(System.getProperty("app.log"));
    int port = Ports.freePort();
    Process app = start(port, pg.jdbcUrl(), log);
    URI base = URI.create("http://127.0.0.1:" + port);
    String output;
    int frozeAt;
    int stoppedAt;
    // the application's schema, from its application.properties; it installs it at start
    PostgresFencing store = null;
    try {
      awaitLine(app, log, "Started Application");
      store = PostgresFencing.builder(pg.dataSource()).schema("jobs").install(false).build();

      // JSON that is no SendEmail: its job ends FAILED at its first attempt, and the worker goes on
      long bad = store.queue().enqueue("emails", "[1]");
      JobSnapshot undecodable = awaitState(store, bad, JobState.FAILED);
      assertThat(undecodable.attempts()).isEqualTo(1);
      assertThat(undecodable.lastError())
          .startsWith(
              "the payload does not decode: cannot decode JSON as a example.boot.SendEmail: ");

      HttpResponse<String> signup =
          http.send(
              HttpRequest.newBuilder(base.resolve("/signup?email=ada@example.com"))
                  .POST(HttpRequest.BodyPublishers.noBody())
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(signup.statusCode()).as(signup.body()).isEqualTo(200);
      long id = Long.parseLong(signup.body().strip());

      JobSnapshot job = awaitState(store, id, JobState.COMPLETED);
      assertThat(job.payload()).isEqualTo("{\"to\": \"ada@example.com\"}");
      assertThat(job.result()).contains("\"to\": \"ada@example.com\"", "\"epoch\": 1");
      assertThat(job.epoch()).isEqualTo(1);

      consoleShowsTheJob(base, id);

      HttpResponse<String> health = get(base.resolve("/actuator/health"));
      assertThat(health.statusCode()).as(health.body()).isEqualTo(200);
      assertThat(fencing(health)).isEqualTo("UP");
      String emails = "$.components.fencing.details.runtimes.emails.";
      assertThat(JsonPath.<Integer>read(health.body(), emails + "failed"))
          .as("the payload that does not decode, counted")
          .isEqualTo(1);
      assertThat(JsonPath.<Integer>read(health.body(), emails + "completed")).isEqualTo(1);
      assertThat(ready(base)).as("readiness").isEqualTo(200);

      // a server that holds its connections and never answers: the readiness group has no `db`
      frozeAt = read(log).length();
      pg.freeze();
      try {
        long asked = System.nanoTime();
        HttpResponse<String> frozen = get(base.resolve("/actuator/health/readiness"));
        Duration took = Duration.ofNanos(System.nanoTime() - asked);
        System.out.println("readiness with PostgreSQL frozen answered in " + took);
        assertThat(frozen.statusCode()).as(frozen.body()).isEqualTo(503);
        assertThat(fencing(frozen)).isEqualTo("DOWN");
        assertThat(frozen.body()).contains("the database did not answer within PT5S");
      } finally {
        pg.thaw();
      }
      awaitReady(base);
    } finally {
      stoppedAt = read(log).length();
      app.destroy(); // SIGTERM, as an orchestrator stops it
      if (!app.waitFor(STOP.toSeconds(), TimeUnit.SECONDS)) {
        app.destroyForcibly();
        fail("the application did not stop within %s of SIGTERM:%n%s", STOP, read(log));
      }
      output = read(log);
      if (store != null) {
        store.close();
      }
      pg.close();
    }
    System.out.println("Spring Boot " + line + " application printed:\n" + output);
    String beforeTheFreeze = output.substring(0, frozeAt);
    String theStop = output.substring(stoppedAt);
    for (String part : List.of(beforeTheFreeze, theStop)) {
      assertThat(part)
          .as("what the application printed up to the freeze, and from SIGTERM on")
          .doesNotContain(" WARN ", " ERROR ", "\tat ", "Exception", "jOOQ", "@@@@");
    }
    assertThat(beforeTheFreeze).contains("Started Application");
    assertThat(theStop.lines().filter(l -> l.contains(" INFO ") && l.contains("fencing: owner ")))
        .as("the starter's line when the runtimes had drained")
        .singleElement()
        .asString()
        .contains(" drained 1 queue [emails] in ", "the listening connection is closed");
  }

  static final String OPS_PASSWORD = "ops-password-for-the-test";
  static final String OPS_HASH = ConsolePasswords.hash(OPS_PASSWORD.toCharArray());

  /** The operator's console, mounted by the starter under /fencing: log in, read the job. */
  private static void consoleShowsTheJob(URI base, long id) throws Exception {
    HttpClient browser =
        HttpClient.newBuilder().cookieHandler(new java.net.CookieManager()).build();
    HttpResponse<String> unknown =
        browser.send(
            HttpRequest.newBuilder(base.resolve("/fencing/jobs/" + id)).build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(unknown.statusCode()).isEqualTo(302);
    HttpResponse<String> form =
        browser.send(
            HttpRequest.newBuilder(base.resolve("/fencing/login")).build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(form.statusCode()).as(form.body()).isEqualTo(200);
    java.util.regex.Matcher csrf =
        java.util.regex.Pattern.compile("name=\"csrf\" value=\"([^\"]+)\"").matcher(form.body());
    assertThat(csrf.find()).as(form.body()).isTrue();
    HttpResponse<String> login =
        browser.send(
            HttpRequest.newBuilder(base.resolve("/fencing/login"))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(
                    HttpRequest.BodyPublishers.ofString(
                        "csrf=" + csrf.group(1) + "&name=ops&password=" + OPS_PASSWORD))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(login.statusCode()).as(login.body()).isEqualTo(303);
    HttpResponse<String> job =
        browser.send(
            HttpRequest.newBuilder(base.resolve("/fencing/jobs/" + id)).build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(job.statusCode()).as(job.body()).isEqualTo(200);
    assertThat(job.body()).contains("Job " + id, "Epoch history", "ada@example.com");
  }

  private static Process start(int port, String jdbcUrl, Path log) throws IOException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-jar");
    command.add(System.getProperty("app.jar"));
    command.add("--server.port=" + port);
    command.add("--spring.datasource.url=" + jdbcUrl);
    command.add("--spring.datasource.username=postgres");
    command.add("--spring.datasource.password=");
    ProcessBuilder builder = new ProcessBuilder(command);
    // application.properties reads the console user's hash from the environment, as docs/SPRING.md says
    builder.environment().put("CONSOLE_OPS_HASH", OPS_HASH);
    return builder
        .redirectErrorStream(true)
        .redirectOutput(log.toFile())
        .start();
  }

  private static JobSnapshot awaitState(PostgresFencing fencing, long id, JobState state)
      throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    Optional<JobDetails> job = Optional.empty();
    while (System.nanoTime() < deadline) {
      job = fencing.admin().job(id);
      if (job.isPresent() && job.get().job().state() == state) {
        return job.get().job();
      }
      Thread.sleep(100);
    }
    return fail("job %d was not %s within 30 s: %s", id, state, job);
  }

  private void awaitReady(URI base) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (ready(base) != 200) {
      if (System.nanoTime() > deadline) {
        fail("not ready again within 30 s of PostgreSQL running again");
      }
      Thread.sleep(200);
    }
  }

  private int ready(URI base) throws IOException, InterruptedException {
    return get(base.resolve("/actuator/health/readiness")).statusCode();
  }

  private static String fencing(HttpResponse<String> health) {
    return JsonPath.read(health.body(), "$.components.fencing.status");
  }

  private HttpResponse<String> get(URI uri) throws IOException, InterruptedException {
    return http.send(
        HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(20)).build(),
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
}
