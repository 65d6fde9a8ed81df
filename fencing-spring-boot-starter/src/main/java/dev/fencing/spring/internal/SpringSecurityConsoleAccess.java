package dev.fencing.spring.internal;

import dev.fencing.console.ConsoleAuthenticator;
import dev.fencing.console.FencingConsole;
import dev.fencing.spring.ConsoleProperties;
import jakarta.servlet.http.HttpServletRequest;
import java.util.Map;
import org.springframework.security.web.csrf.CsrfToken;

/**
 * The console behind Spring Security: its users are Spring Security's, placed by the roles
 * FENCING_VIEWER and FENCING_OPERATOR ({@link ConsoleAuthenticator#containerRoles()}), and each of
 * its forms carries Spring Security's CSRF token, which Spring's CsrfFilter checks before the
 * console sees a POST.
 */
final class SpringSecurityConsoleAccess {

  /**
   * Lets Spring Security place the console's users.
   *
   * @throws IllegalStateException if the properties name users or an anonymous role, which Spring
   *     Security's login would silently replace
   */
  void configure(FencingConsole.Builder builder, ConsoleProperties properties) {
    if (!properties.users().isEmpty() || properties.allowsAnonymous()) {
      throw new IllegalStateException(
          "fencing.console.users and fencing.console.anonymous do not apply with Spring Security,"
              + " which says who uses the console: remove them and grant the application's users"
              + " the role FENCING_VIEWER or FENCING_OPERATOR");
    }
    builder
        .authenticator(ConsoleAuthenticator.containerRoles())
        .extraFormFields(SpringSecurityConsoleAccess::csrfField);
  }

  /** Spring Security's CSRF token as a form field, or none when its filter set none. */
  static Map<String, String> csrfField(HttpServletRequest request) {
    if (request.getAttribute(CsrfToken.class.getName()) instanceof CsrfToken token) {
      return Map.of(token.getParameterName(), token.getToken());
    }
    return Map.of();
  }
}
