package dev.fencing.console.internal;

import dev.fencing.console.ConsolePasswords;
import dev.fencing.console.ConsoleUser;
import org.jspecify.annotations.Nullable;

/** Checks a login form: a user's name and password, or a token in the password field. */
final class Credentials {

  /** Hashed once so that an unknown name costs as much as a wrong password. */
  private static final String DUMMY = ConsolePasswords.hash("not a password".toCharArray());

  private Credentials() {}

  static @Nullable ConsoleUser check(
      ConsoleConfig config, @Nullable String name, @Nullable String password) {
    if (password == null || password.isEmpty() || password.length() > 1_000) {
      return null;
    }
    ConsoleUser byToken = config.tokens().get(ConsoleConfig.sha256(password));
    if (byToken != null) {
      return byToken;
    }
    ConsoleConfig.Account account = name == null ? null : config.users().get(name);
    boolean matches =
        ConsolePasswords.matches(
            password.toCharArray(), account == null ? DUMMY : account.passwordHash());
    return matches && account != null ? new ConsoleUser(name, account.role()) : null;
  }
}
