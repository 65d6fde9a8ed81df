package dev.fencing.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencing.console.ConsolePasswords;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;

/** The operator's console mounted in the application's servlet container (fencing.console.*). */
class ConsoleMountTest {

  private static final String HASH = ConsolePasswords.hash("a-long-password".toCharArray());

  /** A web application with nothing of its own. */
  @Configuration(proxyBeanMethods = false)
  @EnableAutoConfiguration
  static class WebApp {}

  @Test
  void enabledWithAUserItServesTheLoginPageAndSendsAStrangerThere() throws Exception {
    try (ConfigurableApplicationContext app =
        web(
            "fencing.console.enabled=true",
            "fencing.console.path=/ops/console",
            "fencing.console.users[0].name=ops",
            "fencing.console.users[0].password-hash=" + HASH,
            "fencing.console.users[0].role=operator")) {
      HttpResponse<String> login = get(app, "/ops/console/login");
      assertThat(login.statusCode()).isEqualTo(200);
      assertThat(login.body()).contains("name=\"password\"");

      HttpResponse<String> stranger = get(app, "/ops/console/");
      assertThat(stranger.statusCode()).isEqualTo(302);
      assertThat(stranger.headers().firstValue("Location").orElseThrow())
          .endsWith("/ops/console/login");
    }
  }

  @Test
  void withoutEnabledNothingIsServedUnderThePath() throws Exception {
    try (ConfigurableApplicationContext app =
        web(
            "fencing.console.users[0].name=ops",
            "fencing.console.users[0].password-hash=" + HASH,
            "fencing.console.users[0].role=operator")) {
      assertThat(get(app, "/fencing/login").statusCode()).isEqualTo(404);
    }
  }

  @Test
  void enabledWithNobodyToLetInTheApplicationDoesNotStart() {
    assertThatThrownBy(() -> web("fencing.console.enabled=true").close())
        .rootCause()
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith(
            "fencing.console.enabled=true lets nobody in: set fencing.console.users[0].name,");
  }

  @Test
  void aBadValueIsNamedWhenBound() {
    assertThatThrownBy(() -> bind(Map.of("fencing.console.anonymous", "admin")))
        .isInstanceOf(BindException.class)
        .rootCause()
        .hasMessage("fencing.console.anonymous must be none, viewer or operator, but was 'admin'");
    assertThatThrownBy(
            () ->
                bind(
                    Map.of(
                        "fencing.console.users[0].name", "ops",
                        "fencing.console.users[0].password-hash", "secret",
                        "fencing.console.users[0].role", "operator")))
        .rootCause()
        .hasMessageStartingWith(
            "fencing.console.users[0].password-hash: passwordHash must look like pbkdf2-sha256:");
    assertThatThrownBy(
            () ->
                bind(
                    Map.of(
                        "fencing.console.tokens[0].name", "ci",
                        "fencing.console.tokens[0].token", "x".repeat(40),
                        "fencing.console.tokens[0].role", "admin")))
        .rootCause()
        .hasMessage("fencing.console.tokens[0].role must be viewer or operator, but was 'admin'");
    assertThatThrownBy(() -> bind(Map.of("fencing.console.path", "/fencing/")))
        .rootCause()
        .hasMessageStartingWith("fencing.console.path must be like /fencing");
  }

  private static ConfigurableApplicationContext web(String... properties) {
    return Apps.start(
        WebApplicationType.SERVLET, WebApp.class, Apps.db().freshSchema("console"), properties);
  }

  private static HttpResponse<String> get(ConfigurableApplicationContext app, String path)
      throws Exception {
    String port = app.getEnvironment().getProperty("local.server.port");
    try (HttpClient client = HttpClient.newHttpClient()) {
      return client.send(
          HttpRequest.newBuilder(URI.create("http://localhost:" + port + path)).build(),
          HttpResponse.BodyHandlers.ofString());
    }
  }

  private static ConsoleProperties bind(Map<String, String> properties) {
    return new Binder(new MapConfigurationPropertySource(properties))
        .bindOrCreate("fencing.console", ConsoleProperties.class);
  }
}
