package dev.fencing.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencing.console.ConsolePasswords;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.testkit.db.FencingDatabase;
import dev.fencing.testkit.db.PostgresFixture;
import dev.fencing.testkit.db.TestSchema;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** {@code fencing console}: the web console served by the CLI, in a child process. */
@FencingDatabase
class ConsoleCommandTest {

  @Test
  void servesTheQueuesPageToAnAnonymousViewerOnLoopbackUntilTerminated(TestSchema schema)
      throws Exception {
    PostgresFencing.builder(schema.dataSource()).schema(schema.name()).build().close();
    Process process = start(schema, "console", "--port", "0", "--schema", schema.name());
    try {
      String line =
          new BufferedReader(
                  new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))
              .readLine();
      Matcher m =
          Pattern.compile(
                  "console at (http://127\\.0\\.0\\.1:[0-9]+/) \\(schema "
                      + schema.name()
                      + "\\); Ctrl-C to stop")
              .matcher(String.valueOf(line));
      assertThat(m.matches()).as(line).isTrue();

      HttpResponse<String> queues;
      try (HttpClient client = HttpClient.newHttpClient()) {
        queues =
            client.send(
                HttpRequest.newBuilder(URI.create(m.group(1))).build(),
                HttpResponse.BodyHandlers.ofString());
      }
      assertThat(queues.statusCode()).isEqualTo(200);
      assertThat(queues.body()).contains("<h1>Queues</h1>");

      process.destroy(); // SIGTERM, as Ctrl-C's SIGINT: the shutdown hook closes the server
      assertThat(process.waitFor()).isEqualTo(143);
    } finally {
      process.destroyForcibly();
    }
  }

  @Test
  void hashPasswordHashesALineOfStandardInput() throws Exception {
    Process process = start(null, "console", "--hash-password");
    try {
      try (OutputStream in = process.getOutputStream()) {
        in.write("a-long-password\n".getBytes(StandardCharsets.UTF_8));
      }
      String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(process.waitFor()).as(out).isZero();
      assertThat(out).startsWith("pbkdf2-sha256:").endsWith("\n");
      assertThat(ConsolePasswords.matches("a-long-password".toCharArray(), out.strip())).isTrue();
      assertThat(ConsolePasswords.matches("another-password".toCharArray(), out.strip())).isFalse();
    } finally {
      process.destroyForcibly();
    }
  }

  @Test
  void badOptionsAreNamedBeforeAnythingConnects() {
    assertThat(execute("console", "--port", "70000"))
        .isEqualTo("fencing: --port must be between 0 and 65535, but was 70000\n");
    assertThat(execute("console", "--anonymous", "admin"))
        .isEqualTo(
            "fencing: --anonymous: the role must be viewer or operator (or none), but was"
                + " 'admin'\n");
    assertThat(execute("console", "--host", "0.0.0.0", "--anonymous", "viewer"))
        .startsWith("fencing: --anonymous must be none with --host 0.0.0.0 (not loopback)");
    assertThat(execute("console", "--host", "0.0.0.0"))
        .startsWith("fencing: --host 0.0.0.0 (not loopback) lets nobody in without credentials");
    assertThat(execute("console", "--login", "ops:secret:operator"))
        .startsWith("fencing: --login ops: passwordHash must look like pbkdf2-sha256:");
    assertThat(execute("console", "--login", "ops:" + hash() + ":admin"))
        .isEqualTo("fencing: --login ops: the role must be viewer or operator, but was 'admin'\n");
    assertThat(execute("console", "--token-env", "FENCING_TEST_NO_SUCH_VARIABLE:viewer"))
        .isEqualTo(
            "fencing: --token-env FENCING_TEST_NO_SUCH_VARIABLE: the environment variable must"
                + " hold a token of at least 32 characters, but is not set\n");
  }

  private static String hash() {
    return ConsolePasswords.hash("a-long-password".toCharArray());
  }

  /** Runs the command in this JVM; returns what it printed on standard error, exit code 2. */
  private static String execute(String... args) {
    StringWriter err = new StringWriter();
    int code = FencingCli.execute(args, new PrintWriter(new StringWriter()), new PrintWriter(err));
    assertThat(code).as(err.toString()).isEqualTo(ExitCode.USAGE);
    return err.toString();
  }

  /** Starts the CLI's main class in a child process, on {@code schema}'s database if given. */
  private static Process start(TestSchema schema, String... args) throws Exception {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(
        List.of("-cp", System.getProperty("java.class.path"), FencingCli.class.getName()));
    command.addAll(List.of(args));
    ProcessBuilder builder = new ProcessBuilder(command);
    if (schema != null) {
      PostgresFixture.Database db = schema.database();
      builder.environment().put("FENCING_JDBC_URL", db.jdbcUrl());
      builder.environment().put("FENCING_JDBC_USER", db.user());
      builder.environment().put("FENCING_JDBC_PASSWORD", db.password());
    }
    builder.redirectError(ProcessBuilder.Redirect.INHERIT);
    return builder.start();
  }
}
