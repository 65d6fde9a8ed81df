package example;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.FencedQueue;
import dev.fencing.JobSnapshot;
import dev.fencing.JobState;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.testkit.db.PostgresFixture;
import java.io.BufferedReader;
import java.io.File;
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
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Runs the README's Sample as a user runs it: {@code java} on this project's run-time class path
 * (what Maven resolves for a build that declares the README's dependencies, nothing of the tests'),
 * against a real PostgreSQL; it must run the typed job, end the job whose payload does not decode
 * FAILED at once, print both outcomes, stop on Enter and print nothing else that would alarm anyone. The library logs through SLF4J to the application's binding: the
 * README's slf4j-simple, or Logback in its place.
 */
class SampleTest {

  private static final Path HERE = Path.of(System.getProperty("basedir"));

  /** What the Sample surely logs at INFO: build() installs the schema it dropped before. */
  private static final String MIGRATED =
      "INFO dev.fencing.postgres.internal.Installer - schema jobs: applied migration 1 (fencing"
          + " schema)";

  @Test
  void theSampleRunsTheJobPrintsItsOutcomeAndStopsOnEnter() throws Exception {
    String stderr = runSample(runtimeClassPath());

    // slf4j-simple's line: "[main] INFO logger - message", on standard error
    assertThat(stderr).contains("[main] " + MIGRATED);
  }

  @Test
  void withLogbackInPlaceOfSlf4jSimpleTheLibrarysLinesGoToLogback() throws Exception {
    List<String> classPath = new ArrayList<>();
    for (String jar : runtimeClassPath().split(File.pathSeparator)) {
      if (!Path.of(jar).getFileName().toString().startsWith("slf4j-simple-")) {
        classPath.add(jar);
      }
    }
    classPath.add(Files.readString(HERE.resolve("target/logback-classpath.txt")).strip());
    classPath.add(HERE.resolve("src/test/logback").toString()); // its logback.xml

    String stderr = runSample(String.join(File.pathSeparator, classPath));

    assertThat(stderr).contains("logback: " + MIGRATED).doesNotContain("[main] INFO");
  }

  /**
   * Runs the Sample with {@code classPath} after the project's classes, presses Enter once it
   * printed its outcome, checks what it printed, and returns what it wrote to standard error.
   */
  private static String runSample(String classPath) throws Exception {
    PostgresFixture.Database db = PostgresFixture.urlOrEmbedded();
    db.dropSchema("jobs"); // the Sample's schema, which the quick start shares
    ProcessBuilder launch =
        new ProcessBuilder(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-cp",
            HERE.resolve("target/classes") + File.pathSeparator + classPath,
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
        if (lines.stream().anyMatch(l -> l.startsWith("Completed["))
            && lines.stream().anyMatch(l -> l.startsWith("Failed["))
            && (line.startsWith("Completed[") || line.startsWith("Failed["))) {
          try (Writer in = new java.io.OutputStreamWriter(sample.getOutputStream())) {
            in.write("\n"); // Enter, once both emails' jobs have ended
          }
        }
      }
    }
    assertThat(sample.waitFor(60, TimeUnit.SECONDS)).isTrue();
    String stderr = errors.get(10, TimeUnit.SECONDS);
    System.out.println("the Sample printed " + lines + "\nand on standard error:\n" + stderr);

    assertThat(sample.exitValue()).as(stderr).isZero();
    // one outcome a job; the decoder's message may take more than one line
    assertThat(lines)
        .filteredOn(l -> l.matches("(Completed|FencedOff|Failed|Released|Abandoned)\\[.*"))
        .hasSize(2);
    String completed = lines.stream().filter(l -> l.startsWith("Completed[")).findFirst().get();
    String failed = lines.stream().filter(l -> l.startsWith("Failed[")).findFirst().get();
    assertThat(completed)
        .startsWith("Completed[job=Job[lease=Lease[")
        .contains("owner=worker-1", "epoch=epoch 1", "delivery=Accepted[", "commit=Accepted[");
    assertThat(failed).contains("owner=worker-1", "cannot decode JSON as a example.Sample$SendEmail");
    assertThat(stderr).doesNotContain("WARN", "ERROR", "Exception", "jOOQ", "@@@@");
    theJobsEndedAsTheSampleSays(db, jobId(completed), jobId(failed));
    return stderr;
  }

  /**
   * The email's job completed with its typed result, read back typed; the payload that does not
   * decode ended its job FAILED at its first attempt, with the decoder's message.
   */
  private static void theJobsEndedAsTheSampleSays(
      PostgresFixture.Database db, long completed, long failed) {
    try (PostgresFencing fencing =
        PostgresFencing.builder(db.dataSource()).schema("jobs").install(false).build()) {
      theJobsEndedAsTheSampleSays(fencing.queue(), completed, failed);
    }
  }

  private static void theJobsEndedAsTheSampleSays(FencedQueue queue, long completed, long failed) {
    assertThat(queue.result(Sample.EMAILS, completed))
        .hasValue(new Sample.Sent("ada@example.com", 1));
    assertThat(queue.find(completed).orElseThrow().payload())
        .isEqualTo("{\"to\": \"ada@example.com\"}");
    JobSnapshot undecodable = queue.find(failed).orElseThrow();
    assertThat(undecodable.state()).isEqualTo(JobState.FAILED);
    assertThat(undecodable.attempts()).as("no retry").isEqualTo(1);
    assertThat(undecodable.lastError())
        .startsWith("the payload does not decode: cannot decode JSON as a example.Sample$SendEmail");
  }

  private static long jobId(String outcome) {
    Matcher id = Pattern.compile("jobId=(\\d+)").matcher(outcome);
    assertThat(id.find()).as(outcome).isTrue();
    return Long.parseLong(id.group(1));
  }

  @Test
  void theRunTimeClassPathHasTheVersionsTheLibraryIsBuiltWithAndNoJooq() throws IOException {
    List<String> jars =
        List.of(runtimeClassPath().split(File.pathSeparator)).stream()
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
