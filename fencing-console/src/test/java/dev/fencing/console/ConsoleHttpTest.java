package dev.fencing.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.JobState;
import dev.fencing.testkit.logging.CapturedLogs;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.CookieManager;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The console's guards seen over plain HTTP, without a browser. */
class ConsoleHttpTest extends ServedConsole {

  static final String TOKEN = "a-token-of-at-least-32-characters-for-scripts";
  private final HttpClient http = HttpClient.newHttpClient();

  @Override
  FencingConsole.Builder configure(FencingConsole.Builder builder) {
    return builder.token("deploy-bot", TOKEN, ConsoleRole.OPERATOR);
  }

  @Test
  void everyPageForbidsFramingSniffingAndForeignScripts() throws Exception {
    HttpResponse<String> page = get("login", null);

    assertThat(page.statusCode()).isEqualTo(200);
    assertThat(page.headers().firstValue("Content-Security-Policy").orElseThrow())
        .contains("default-src 'none'", "script-src 'self'", "frame-ancestors 'none'");
    assertThat(page.headers().firstValue("X-Content-Type-Options")).contains("nosniff");
    assertThat(page.headers().allValues("Set-Cookie"))
        .anySatisfy(c -> assertThat(c).contains("HttpOnly", "SameSite=Strict"));
  }

  @Test
  void aRequestForAnotherHostNameIsRefused() throws Exception {
    // what a page of another site sends after pointing a name of its own at 127.0.0.1
    try (Socket socket = new Socket("127.0.0.1", server.port())) {
      OutputStream out = socket.getOutputStream();
      out.write(
          "GET /login HTTP/1.1\r\nHost: evil.example:%d\r\nConnection: close\r\n\r\n"
              .formatted(server.port())
              .getBytes(StandardCharsets.US_ASCII));
      out.flush();
      String status =
          new BufferedReader(
                  new InputStreamReader(socket.getInputStream(), StandardCharsets.US_ASCII))
              .readLine();
      assertThat(status).contains(" 421 ");
    }
    assertThat(get("login", null).statusCode()).isEqualTo(200);
  }

  @Test
  void aTokenReadsAndActsWithoutASessionAWrongOneDoesNot() throws Exception {
    long id = fencing.queue().enqueue("reports", "{}");
    fencing.admin().fail(id, "broken");

    assertThat(get("jobs/" + id, "wrong" + TOKEN).statusCode()).isEqualTo(302);
    assertThat(post("jobs/" + id + "/requeue", "wrong" + TOKEN).statusCode()).isEqualTo(403);
    assertThat(state(id)).isEqualTo(JobState.FAILED);

    assertThat(get("jobs/" + id, TOKEN).body()).contains("Job " + id);
    assertThat(post("jobs/" + id + "/requeue", TOKEN).statusCode()).isEqualTo(303);
    assertThat(state(id)).isEqualTo(JobState.PENDING);
  }

  @Test
  void everyActionIsLoggedWithWhoDidIt() throws Exception {
    long id = fencing.queue().enqueue("reports", "{}");
    fencing.admin().fail(id, "broken");
    List<String> audit;
    try (CapturedLogs logs = CapturedLogs.of("dev.fencing.console.audit")) {
      post("jobs/" + id + "/requeue", TOKEN);
      post("jobs/" + id + "/requeue", TOKEN);
      audit = logs.messages();
    }

    assertThat(audit)
        .containsExactly(
            "console: deploy-bot (operator) requeue job " + id + ": done: Requeued: it runs again.",
            "console: deploy-bot (operator) requeue job "
                + id
                + ": refused: job "
                + id
                + " is pending; only a failed job can be requeued; enqueue a new job to run a"
                + " completed one again");
  }

  @Test
  void aLoginReplacesTheSessionItStartedIn() throws Exception {
    HttpClient browserLike = HttpClient.newBuilder().cookieHandler(new CookieManager()).build();
    HttpResponse<String> form =
        browserLike.send(
            HttpRequest.newBuilder(URI.create(url("login"))).build(),
            HttpResponse.BodyHandlers.ofString());
    String before = cookie(form);
    Matcher csrf = Pattern.compile("name=\"csrf\" value=\"([^\"]+)\"").matcher(form.body());
    assertThat(csrf.find()).isTrue();

    HttpResponse<String> login =
        browserLike.send(
            HttpRequest.newBuilder(URI.create(url("login")))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(
                    HttpRequest.BodyPublishers.ofString(
                        "csrf=" + csrf.group(1) + "&name=olivia&password=" + OPERATOR_PASSWORD))
                .build(),
            HttpResponse.BodyHandlers.ofString());

    assertThat(login.statusCode()).isEqualTo(303);
    assertThat(cookie(login)).isNotEqualTo(before);
    // the session the login started in is gone: whoever planted it learns nothing
    HttpResponse<String> planted =
        http.send(
            HttpRequest.newBuilder(URI.create(url("jobs")))
                .header("Cookie", "fencing_console=" + before)
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(planted.statusCode()).isEqualTo(302);
  }

  private static String cookie(HttpResponse<?> response) {
    return response.headers().allValues("Set-Cookie").stream()
        .filter(c -> c.startsWith("fencing_console="))
        .map(c -> c.substring("fencing_console=".length(), c.indexOf(';')))
        .findFirst()
        .orElseThrow();
  }

  @Test
  void aCancelledJobOffersNoRequeueAFailedOneDoesWhateverItsErrorSays() throws Exception {
    long cancelled = fencing.queue().enqueue("reports", "{}");
    fencing.admin().cancel(cancelled, "not needed");
    long failed = fencing.queue().enqueue("reports", "{}");
    fencing.admin().fail(failed, "cancelled by the PSP: card expired");

    assertThat(get("jobs/" + cancelled, TOKEN).body()).doesNotContain("id=\"requeue\"");
    assertThat(get("jobs/" + failed, TOKEN).body()).contains("id=\"requeue\"");
  }

  @Test
  void aPostWithoutLoginIsRefused() throws Exception {
    long id = fencing.queue().enqueue("reports", "{}");
    fencing.admin().fail(id, "broken");

    assertThat(post("jobs/" + id + "/requeue", null).statusCode()).isEqualTo(403);
    assertThat(state(id)).isEqualTo(JobState.FAILED);
  }

  @Test
  void anAnonymousConsoleRefusesToBindBeyondLoopback() {
    FencingConsole anonymous =
        FencingConsole.builder(fencing).anonymous(ConsoleRole.VIEWER).build();

    assertThatThrownBy(() -> ConsoleServer.builder(anonymous).host("0.0.0.0").start())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("0.0.0.0 is not loopback");
    assertThatThrownBy(() -> FencingConsole.builder(fencing).build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("nobody in");
  }

  @Test
  void badConfigurationNamesTheParameter() {
    assertThatThrownBy(
            () ->
                ConsoleServer.builder(
                        FencingConsole.builder(fencing).anonymous(ConsoleRole.VIEWER).build())
                    .port(70_000))
        .hasMessage("port must be between 0 and 65535, but was 70000");
    assertThatThrownBy(
            () -> FencingConsole.builder(fencing).user("ops", "plain-text", ConsoleRole.OPERATOR))
        .hasMessageContaining("passwordHash must look like pbkdf2-sha256");
    assertThatThrownBy(
            () -> FencingConsole.builder(fencing).token("bot", "short", ConsoleRole.VIEWER))
        .hasMessage("token must have at least 32 characters, but had 5");
    assertThatThrownBy(() -> ConsolePasswords.hash("short".toCharArray()))
        .hasMessage("password must have at least 8 characters, but had 5");
    assertThat(ConsolePasswords.matches("operator-password".toCharArray(), OPERATOR_HASH)).isTrue();
    assertThat(ConsolePasswords.matches("operator-passwore".toCharArray(), OPERATOR_HASH))
        .isFalse();
  }

  private HttpResponse<String> get(String path, String token) throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(url(path))).timeout(Duration.ofSeconds(10));
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> post(String path, String token) throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(url(path)))
            .timeout(Duration.ofSeconds(10))
            .header("Content-Type", "application/x-www-form-urlencoded")
            .POST(HttpRequest.BodyPublishers.ofString(""));
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  private JobState state(long id) {
    return fencing.admin().job(id).orElseThrow().job().state();
  }
}
