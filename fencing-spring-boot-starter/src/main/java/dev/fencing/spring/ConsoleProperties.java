package dev.fencing.spring;

import dev.fencing.console.ConsolePasswords;
import dev.fencing.internal.Validate;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The {@code fencing.console.*} properties: the operator's console (fencing-console, an optional
 * dependency) mounted in the application's servlet container. Bound only with fencing-console on
 * the class path and {@code fencing.console.enabled=true}, and checked then, naming the property.
 *
 * <pre>
 * fencing.console.enabled=true
 * fencing.console.users[0].name=ops
 * fencing.console.users[0].password-hash=pbkdf2-sha256:210000:...
 * fencing.console.users[0].role=operator
 * </pre>
 *
 * @param enabled whether the console is served; default false
 * @param path where it is served, such as /fencing (its pages under path/*); default /fencing
 * @param users users who log in on the console's own login page, each with a name, a password-hash
 *     (from fencing console --hash-password) and a role (viewer or operator). Not with Spring
 *     Security, which says who may use the console by the roles FENCING_VIEWER and FENCING_OPERATOR
 * @param tokens bearer tokens for scripts (Authorization: Bearer), each with a name (for the audit
 *     log), a token of at least 32 characters and a role (viewer or operator)
 * @param anonymous the role of visitors without credentials: none, viewer or operator; default
 *     none. Anyone who reaches the application's port gets it: not with Spring Security
 * @param showPayloadsToViewers whether viewers see jobs' payloads and results too; default false
 *     (operators only)
 * @since 0.1
 */
@ConfigurationProperties("fencing.console")
public record ConsoleProperties(
    @DefaultValue("false") boolean enabled,
    @DefaultValue("/fencing") String path,
    @Nullable List<User> users,
    @Nullable List<Token> tokens,
    @DefaultValue("none") String anonymous,
    @DefaultValue("false") boolean showPayloadsToViewers) {

  private static final Pattern PATH = Pattern.compile("(/[A-Za-z0-9._~-]+)+");

  /**
   * Checks every property.
   *
   * @throws IllegalArgumentException naming the first property that is wrong and its value
   */
  public ConsoleProperties {
    if (!PATH.matcher(path).matches()) {
      throw new IllegalArgumentException(
          "fencing.console.path must be like /fencing (segments of letters, digits, '.', '_', '~'"
              + " or '-', no trailing slash), but was "
              + Validate.quote(path));
    }
    users = users == null ? List.of() : List.copyOf(users);
    tokens = tokens == null ? List.of() : List.copyOf(tokens);
    Set<String> names = new HashSet<>();
    for (int i = 0; i < users.size(); i++) {
      String prefix = "fencing.console.users[" + i + "].";
      User user = users.get(i);
      user.check(prefix);
      if (!names.add(user.name())) {
        throw new IllegalArgumentException(
            prefix + "name must be unique, but " + Validate.quote(user.name()) + " came before");
      }
    }
    for (int i = 0; i < tokens.size(); i++) {
      tokens.get(i).check("fencing.console.tokens[" + i + "].");
    }
    anonymous = anonymous.strip().toLowerCase(Locale.ROOT);
    if (!anonymous.equals("none")) {
      checkRole("fencing.console.anonymous", anonymous, "none, ");
    }
  }

  /** Returns whether visitors without credentials get a role. */
  public boolean allowsAnonymous() {
    return !anonymous.equals("none");
  }

  /**
   * A user of the console's own login page.
   *
   * @param name the name to log in with, 1 to 100 characters
   * @param passwordHash the password's hash, from fencing console --hash-password
   * @param role viewer or operator
   */
  public record User(@Nullable String name, @Nullable String passwordHash, @Nullable String role) {

    void check(String prefix) {
      if (name == null || name.isBlank() || name.length() > 100) {
        throw new IllegalArgumentException(
            prefix + "name must have 1 to 100 characters, but was " + Validate.quote(name));
      }
      if (passwordHash == null) {
        throw new IllegalArgumentException(
            prefix + "password-hash must be set (make one with fencing console --hash-password)");
      }
      try {
        ConsolePasswords.checkHash(passwordHash);
      } catch (IllegalArgumentException e) {
        // no cause: a binding failure is reported by its root cause, which must name the property
        throw new IllegalArgumentException(prefix + "password-hash: " + e.getMessage());
      }
      checkRole(prefix + "role", role, "");
    }
  }

  /**
   * A bearer token, sent as Authorization: Bearer (token). Only its SHA-256 is kept.
   *
   * @param name who the token stands for in the audit log
   * @param token the token, at least 32 characters
   * @param role viewer or operator
   */
  public record Token(@Nullable String name, @Nullable String token, @Nullable String role) {

    void check(String prefix) {
      if (name == null || name.isBlank()) {
        throw new IllegalArgumentException(
            prefix + "name must not be blank, but was " + Validate.quote(name));
      }
      if (token == null || token.length() < 32) {
        throw new IllegalArgumentException(
            prefix
                + "token must have at least 32 characters, but had "
                + (token == null ? 0 : token.length()));
      }
      checkRole(prefix + "role", role, "");
    }
  }

  private static void checkRole(String property, @Nullable String role, String orNone) {
    String r = role == null ? "" : role.strip().toLowerCase(Locale.ROOT);
    if (!r.equals("viewer") && !r.equals("operator")) {
      throw new IllegalArgumentException(
          property + " must be " + orNone + "viewer or operator, but was " + Validate.quote(role));
    }
  }
}
