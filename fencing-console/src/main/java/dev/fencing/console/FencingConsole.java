package dev.fencing.console;

import dev.fencing.console.internal.ConsoleConfig;
import dev.fencing.console.internal.ConsoleServlet;
import dev.fencing.postgres.PostgresFencing;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The operator's console for one schema: queues, jobs, every epoch of a job and the writes it
 * refused, schedules, ownerships; and, for operators, requeue, fail, cancel and purge through the
 * same {@link dev.fencing.postgres.admin.PostgresAdmin} as the CLI.
 *
 * <pre>{@code
 * FencingConsole console = FencingConsole.builder(fencing)
 *     .user("ops", System.getenv("CONSOLE_HASH"), ConsoleRole.OPERATOR)
 *     .build();
 * try (ConsoleServer server = ConsoleServer.builder(console).port(8081).start()) { ... }
 * }</pre>
 *
 * <p>Nobody gets in without credentials unless {@link Builder#anonymous} says so. Every action is a
 * POST carrying the session's CSRF token, and is logged (SLF4J logger {@code
 * dev.fencing.console.audit}) with who did it. Immutable; {@link #servlet()} may be mounted in any
 * servlet container (Spring Boot's starter does, under {@code fencing.console.path}).
 *
 * @since 0.1
 */
public final class FencingConsole {

  private final PostgresFencing fencing;
  private final ConsoleConfig config;

  private FencingConsole(PostgresFencing fencing, ConsoleConfig config) {
    this.fencing = fencing;
    this.config = config;
  }

  /** Starts a console over {@code fencing}'s schema. */
  public static Builder builder(PostgresFencing fencing) {
    return new Builder(Objects.requireNonNull(fencing, "fencing"));
  }

  /** Returns a new servlet serving this console, to mount under any path. */
  public HttpServlet servlet() {
    return new ConsoleServlet(fencing, config, Set.of());
  }

  HttpServlet servlet(Set<String> allowedHosts) {
    return new ConsoleServlet(fencing, config, allowedHosts);
  }

  /** Returns whether anyone gets in without credentials. */
  public boolean allowsAnonymous() {
    return config.anonymous() != null;
  }

  /** Returns the schema this console shows. */
  public String schema() {
    return fencing.schema();
  }

  @Override
  public String toString() {
    return "FencingConsole[schema=" + fencing.schema() + ", " + config.describe() + "]";
  }

  /** Configures a {@link FencingConsole}. */
  public static final class Builder {

    private final PostgresFencing fencing;
    private final Map<String, ConsoleConfig.Account> users = new HashMap<>();
    private final Map<String, ConsoleUser> tokens = new HashMap<>();
    private @Nullable ConsoleRole anonymous;
    private boolean showPayloadsToViewers;
    private @Nullable ConsoleAuthenticator authenticator;
    private Function<HttpServletRequest, Map<String, String>> extraFormFields = r -> Map.of();

    private Builder(PostgresFencing fencing) {
      this.fencing = fencing;
    }

    /**
     * Adds a user who logs in with a password, given here only as its hash.
     *
     * @param passwordHash from {@link ConsolePasswords#hash} or {@code fencing console
     *     --hash-password}
     * @throws IllegalArgumentException if {@code name} is blank, longer than 100 characters or
     *     already added, or {@code passwordHash} is not a hash
     */
    public Builder user(String name, String passwordHash, ConsoleRole role) {
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(passwordHash, "passwordHash");
      Objects.requireNonNull(role, "role");
      if (name.isBlank() || name.length() > 100) {
        throw new IllegalArgumentException(
            "name must have 1 to 100 characters and not be blank, but was '" + name + "'");
      }
      if (users.containsKey(name)) {
        throw new IllegalArgumentException("name must be unique, but '" + name + "' was added");
      }
      ConsolePasswords.checkHash(passwordHash);
      users.put(name, new ConsoleConfig.Account(passwordHash, role));
      return this;
    }

    /**
     * Adds a bearer token, sent as {@code Authorization: Bearer <token>} by scripts or entered on
     * the login page. Only its SHA-256 is kept.
     *
     * @param name who the token stands for in the audit log
     * @throws IllegalArgumentException if {@code token} has fewer than 32 characters or {@code
     *     name} is blank
     */
    public Builder token(String name, String token, ConsoleRole role) {
      Objects.requireNonNull(token, "token");
      if (token.length() < 32) {
        throw new IllegalArgumentException(
            "token must have at least 32 characters, but had " + token.length());
      }
      tokens.put(ConsoleConfig.sha256(token), new ConsoleUser(name, role));
      return this;
    }

    /**
     * Lets visitors without credentials in with {@code role}; none by default. {@link
     * ConsoleServer} refuses to start an anonymous console bound beyond loopback.
     */
    public Builder anonymous(@Nullable ConsoleRole role) {
      this.anonymous = role;
      return this;
    }

    /** Shows payloads and results to viewers too; by default only operators see them. */
    public Builder showPayloadsToViewers(boolean show) {
      this.showPayloadsToViewers = show;
      return this;
    }

    /**
     * Lets the application say who a request comes from (Spring Security, a container's login)
     * instead of the console's own users and login page.
     */
    public Builder authenticator(ConsoleAuthenticator authenticator) {
      this.authenticator = Objects.requireNonNull(authenticator, "authenticator");
      return this;
    }

    /**
     * Adds hidden fields to every form, e.g. Spring Security's own CSRF token, which its filter
     * checks before the console sees the request.
     */
    public Builder extraFormFields(Function<HttpServletRequest, Map<String, String>> fields) {
      this.extraFormFields = Objects.requireNonNull(fields, "fields");
      return this;
    }

    /**
     * Returns the console.
     *
     * @throws IllegalStateException if nobody could get in: no user, token, authenticator or
     *     anonymous role
     */
    public FencingConsole build() {
      if (users.isEmpty() && tokens.isEmpty() && authenticator == null && anonymous == null) {
        throw new IllegalStateException(
            "the console would let nobody in: add a user(...), a token(...), an"
                + " authenticator(...) or anonymous(ConsoleRole.VIEWER)");
      }
      return new FencingConsole(
          fencing,
          new ConsoleConfig(
              Map.copyOf(users),
              Map.copyOf(tokens),
              anonymous,
              showPayloadsToViewers,
              authenticator,
              extraFormFields));
    }
  }
}
