package example;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.testkit.db.PostgresFixture;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Runs the README's Sample as a user runs it: {@code java} on this project's run-time class path
 * (what Maven resolves for a build that declares the README's dependencies, nothing of the tests'),
 * against a real PostgreSQL; it must run the job, print its outcome, stop on Enter and print nothing
 * else that would alarm anyone.
 */
class SampleTest {

  private static final Path HERE = Path.of(System.getProperty("basedir"));

  @Test
  void theSampleRunsTheJobPrintsItsOutcomeAndStopsOnEnter() throws Exception {
    PostgresFixture.Database db = PostgresFixture.urlOrEmbedded();
    db.dropSchema("jobs"); // the Sample's schema, which the quick start shares
    ProcessBuilder launch =
        new ProcessBuilder(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-cp",
            HERE.resolve("target/classes") + java.io.File.pathSeparator + runtimeClassPath(),
            "example.Sample");
    launch.environment().put("JDBC_URL", urlWithCredentials(db));
    Process sample = launch.start();
    CompletableFuture<String> errors =
        CompletableFuture.supplyAsync(() -> drain(sample.getErrorStream()));
    List<String> lines = new ArrayList<>();
    try (BufferedReader out =
        new BufferedReader(new InputStreamReader(sample.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line = out.readLine(); line != null; line = out.readLine()) {
        lines.add(line);
        if (line.startsWith("Completed[")) {
          try (Writer in = new java.io.OutputStreamWriter(sample.getOutputStream())) {
            in.write("\n"); // Enter
          }
        }
      }
    }
    assertThat(sample.waitFor(60, TimeUnit.SECONDS)).isTrue();
    String stderr = errors.get(10, TimeUnit.SECONDS);
    System.out.println("the Sample printed " + lines + "\nand on standard error:\n" + stderr);

    assertThat(sample.exitValue()).as(stderr).isZero();
    assertThat(lines)
        .singleElement()
        .asString()
        .startsWith("Completed[job=Job[lease=Lease[")
        .contains("owner=worker-1", "epoch=epoch 1", "delivery=Accepted[", "commit=Accepted[");
    assertThat(stderr).doesNotContain("WARN", "ERROR", "Exception", "jOOQ", "@@@@");
  }

  @Test
  void theRunTimeClassPathHasTheVersionsTheLibraryIsBuiltWithAndNoJooq() throws IOException {
    List<String> jars =
        List.of(runtimeClassPath().split(java.io.File.pathSeparator)).stream()
            .map(jar -> Path.of(jar).getFileName().toString())
            .toList();
    assertThat(jars)
        .contains(
            "slf4j-api-" + System.getProperty("slf4j.version") + ".jar",
            "postgresql-" + System.getProperty("postgresql.version") + ".jar",
            "HikariCP-" + System.getProperty("hikaricp.version") + ".jar")
        .noneMatch(jar -> jar.startsWith("jooq"))
        .noneMatch(jar -> jar.startsWith("slf4j-api-1."));
  }

  private static String urlWithCredentials(PostgresFixture.Database db) {
    String url = db.jdbcUrl();
    if (!db.user().isEmpty()) {
      url += (url.contains("?") ? "&" : "?") + "user=" + db.user();
    }
    if (!db.password().isEmpty()) {
      url += "&password=" + db.password();
    }
    return url;
  }

  private static String runtimeClassPath() throws IOException {
    return Files.readString(HERE.resolve("target/runtime-classpath.txt")).strip();
  }

  private static String drain(java.io.InputStream stream) {
    try {
      return new String(stream.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "(unreadable: " + e + ")";
    }
  }
}
