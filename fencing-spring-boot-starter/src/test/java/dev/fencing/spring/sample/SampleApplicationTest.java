package dev.fencing.spring.sample;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.FencedQueue;
import dev.fencing.JobSnapshot;
import dev.fencing.JobState;
import dev.fencing.schedule.FencedScheduler;
import dev.fencing.schedule.Schedule;
import dev.fencing.spring.Apps;
import dev.fencing.testkit.db.PostgresFixture;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The README's Spring Boot sample, run: its properties and its two beans, taken from the README and
 * checked to be this code, on the test PostgreSQL.
 */
class SampleApplicationTest {

  private static final Path ROOT = Path.of("").toAbsolutePath().getParent();

  @Test
  void theSampleRunsAJobEnqueuedThroughSignup() throws IOException {
    PostgresFixture.Database db = Apps.db();
    // the sample's own, then the test database's, which win (a later property overrides)
    List<String> props = new ArrayList<>(sampleProperties().lines().toList());
    props.addAll(Apps.dataSource(db.jdbcUrl(), db.user(), db.password()));
    props.add("fencing.schema=" + db.freshSchema("sample"));
    try (ConfigurableApplicationContext app =
        new SpringApplicationBuilder(SampleApplication.class)
            .properties(props.toArray(String[]::new))
            .properties("spring.main.web-application-type=none")
            .run()) {
      long id = app.getBean(Signup.class).register("ada@example.com");
      FencedQueue queue = app.getBean(FencedQueue.class);
      Apps.await(
          "the job completed",
          Duration.ofSeconds(10),
          () -> queue.find(id).orElseThrow().state() == JobState.COMPLETED);
      JobSnapshot job = queue.find(id).orElseThrow();
      assertThat(job.payload()).isEqualTo("{\"to\": \"ada@example.com\"}");
      assertThat(queue.result(EmailHandler.EMAILS, id)).hasValue(new Sent("ada@example.com", 1));
      assertThat(app.getBean(dev.fencing.spring.ManagedWorkers.class).stats())
          .containsOnlyKeys("emails");
      assertThat(app.getBean(FencedScheduler.class).schedules())
          .extracting(Schedule::name)
          .containsExactly("nightly-report");
    }
  }

  @Test
  void theReadmeShowsThisCode() throws IOException {
    String section = readmeSection("starter sample");
    assertThat(fenced(section, "java")).isEqualTo(marked("SampleApplication", "README sample"));
    assertThat(fenced(section, "properties")).isEqualTo(sampleProperties());
    assertThat(fenced(section, "xml"))
        .contains("<artifactId>fencing-spring-boot-starter</artifactId>");
  }

  @Test
  void theReadmeShowsTheScheduleCode() throws IOException {
    String section = readmeSection("starter schedule sample");
    assertThat(fenced(section, "java"))
        .isEqualTo(marked("ReportSchedules", "README schedule sample"));
    assertThat(fenced(section, "xml")).contains("<artifactId>fencing-schedule</artifactId>");
  }

  /** Returns the README between {@code <!-- begin: name -->} and {@code <!-- end: name -->}. */
  private static String readmeSection(String name) throws IOException {
    return section("README.md", name);
  }

  /** Returns {@code file} between {@code <!-- begin: name -->} and {@code <!-- end: name -->}. */
  private static String section(String file, String name) throws IOException {
    String readme = Files.readString(ROOT.resolve(file));
    String begin = "<!-- begin: " + name + " -->";
    String end = "<!-- end: " + name + " -->";
    assertThat(readme).contains(begin, end);
    return readme.substring(readme.indexOf(begin), readme.indexOf(end));
  }

  /** Returns the lines of this package's {@code type} between its {@code // marker:} lines. */
  private static String marked(String type, String marker) throws IOException {
    String source =
        Files.readString(Path.of("src/test/java/dev/fencing/spring/sample/" + type + ".java"));
    String begin = "// " + marker + ": begin\n";
    return source.substring(
        source.indexOf(begin) + begin.length(), source.indexOf("// " + marker + ": end"));
  }

  private static String sampleProperties() throws IOException {
    try (InputStream in =
        SampleApplicationTest.class.getResourceAsStream("application.properties")) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  private static String fenced(String text, String language) {
    String open = "```" + language + "\n";
    assertThat(text).contains(open);
    int start = text.indexOf(open) + open.length();
    return text.substring(start, text.indexOf("```", start));
  }
}
