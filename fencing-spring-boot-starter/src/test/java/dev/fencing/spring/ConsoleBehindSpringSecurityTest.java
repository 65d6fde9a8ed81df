package dev.fencing.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.StringJoiner;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.annotation.web.configuration.EnableWebSecurity;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;

/**
 * The console behind Spring Security: Spring Security's users by their roles, and its CSRF token in
 * the console's forms, so that its CsrfFilter lets the console's POSTs through.
 */
class ConsoleBehindSpringSecurityTest {

  /** Every request authenticated by HTTP Basic, Spring Security's CSRF protection on. */
  @Configuration(proxyBeanMethods = false)
  @EnableAutoConfiguration
  @EnableWebSecurity
  static class SecuredApp {

    @Bean
    SecurityFilterChain filterChain(HttpSecurity http) throws Exception {
      return http.authorizeHttpRequests(r -> r.anyRequest().authenticated())
          .httpBasic(Customizer.withDefaults())
          .build();
    }

    @Bean
    InMemoryUserDetailsManager users() {
      return new InMemoryUserDetailsManager(
          User.withUsername("olivia").password("{noop}pw").roles("FENCING_OPERATOR").build(),
          User.withUsername("nora").password("{noop}pw").roles("SALES").build());
    }
  }

  @Test
  void anOperatorOfSpringSecuritysPostsWithItsCsrfTokenAndAUserWithoutTheRolesIsRefused()
      throws Exception {
    try (ConfigurableApplicationContext app =
            Apps.start(
                WebApplicationType.SERVLET,
                SecuredApp.class,
                Apps.db().freshSchema("secured"),
                "fencing.console.enabled=true");
        HttpClient client =
            HttpClient.newBuilder().cookieHandler(new java.net.CookieManager()).build()) {
      String base = "http://localhost:" + app.getEnvironment().getProperty("local.server.port");

      HttpResponse<String> page = client.send(as("olivia", base + "/fencing/").build(), ofString());
      assertThat(page.statusCode()).isEqualTo(200);
      String form = hiddenFields(page.body());
      assertThat(form).contains("csrf=");
      HttpResponse<String> logout =
          client.send(
              as("olivia", base + "/fencing/logout")
                  .header("Content-Type", "application/x-www-form-urlencoded")
                  .POST(HttpRequest.BodyPublishers.ofString(form))
                  .build(),
              ofString());
      // 403 from Spring's CsrfFilter without its token in the form
      assertThat(logout.statusCode()).as(logout.body()).isEqualTo(302);

      assertThat(client.send(as("nora", base + "/fencing/").build(), ofString()).statusCode())
          .isEqualTo(401);
    }
  }

  private static HttpRequest.Builder as(String user, String uri) {
    String basic =
        Base64.getEncoder().encodeToString((user + ":pw").getBytes(StandardCharsets.UTF_8));
    return HttpRequest.newBuilder(URI.create(uri)).header("Authorization", "Basic " + basic);
  }

  private static HttpResponse.BodyHandler<String> ofString() {
    return HttpResponse.BodyHandlers.ofString();
  }

  /** The hidden fields of the page's first form, URL-encoded as a browser sends them. */
  private static String hiddenFields(String html) {
    String form = html.substring(html.indexOf("<form"), html.indexOf("</form>"));
    Matcher m =
        Pattern.compile("type=\"hidden\" name=\"([^\"]*)\" value=\"([^\"]*)\"").matcher(form);
    StringJoiner fields = new StringJoiner("&");
    while (m.find()) {
      fields.add(m.group(1) + "=" + URLEncoder.encode(m.group(2), StandardCharsets.UTF_8));
    }
    return fields.toString();
  }
}
