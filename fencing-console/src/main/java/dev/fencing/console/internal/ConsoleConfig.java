package dev.fencing.console.internal;

import dev.fencing.console.ConsoleAuthenticator;
import dev.fencing.console.ConsoleRole;
import dev.fencing.console.ConsoleUser;
import jakarta.servlet.http.HttpServletRequest;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * A console's configuration, as built.
 *
 * @param users password users by name
 * @param tokens token users by the token's SHA-256 (hex)
 */
public record ConsoleConfig(
    Map<String, Account> users,
    Map<String, ConsoleUser> tokens,
    @Nullable ConsoleRole anonymous,
    boolean showPayloadsToViewers,
    @Nullable ConsoleAuthenticator authenticator,
    Function<HttpServletRequest, Map<String, String>> extraFormFields) {

  /** A password user. */
  public record Account(String passwordHash, ConsoleRole role) {}

  /** Whether the console shows its own login page. */
  public boolean ownLogin() {
    return authenticator == null && (!users.isEmpty() || !tokens.isEmpty());
  }

  /** Says how users get in, for toString (no secrets). */
  public String describe() {
    return "users="
        + users.size()
        + ", tokens="
        + tokens.size()
        + ", anonymous="
        + anonymous
        + ", authenticator="
        + (authenticator != null)
        + ", showPayloadsToViewers="
        + showPayloadsToViewers;
  }

  /** SHA-256 of {@code text}, in hex. */
  public static String sha256(String text) {
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(digest);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("this JDK has no SHA-256", e);
    }
  }
}
