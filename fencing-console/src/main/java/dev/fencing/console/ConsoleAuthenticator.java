package dev.fencing.console;

import jakarta.servlet.http.HttpServletRequest;
import java.security.Principal;
import org.jspecify.annotations.Nullable;

/**
 * Tells the console who sent a request, when the application already authenticates its users
 * (Spring Security, a servlet container's login). With one set, the console shows no login page of
 * its own: a request it cannot place is answered 401.
 *
 * @since 0.1
 */
@FunctionalInterface
public interface ConsoleAuthenticator {

  /** Returns the request's user, or null when the request is not authenticated. */
  @Nullable ConsoleUser authenticate(HttpServletRequest request);

  /**
   * The container's user: {@link HttpServletRequest#getUserPrincipal()}, an operator if {@code
   * isUserInRole("FENCING_OPERATOR")}, a viewer if {@code isUserInRole("FENCING_VIEWER")}, nobody
   * otherwise. Spring Security answers {@code isUserInRole} from the authorities {@code
   * ROLE_FENCING_OPERATOR} and {@code ROLE_FENCING_VIEWER}.
   */
  static ConsoleAuthenticator containerRoles() {
    return request -> {
      Principal principal = request.getUserPrincipal();
      if (principal == null) {
        return null;
      }
      if (request.isUserInRole("FENCING_OPERATOR")) {
        return new ConsoleUser(principal.getName(), ConsoleRole.OPERATOR);
      }
      if (request.isUserInRole("FENCING_VIEWER")) {
        return new ConsoleUser(principal.getName(), ConsoleRole.VIEWER);
      }
      return null;
    };
  }
}
