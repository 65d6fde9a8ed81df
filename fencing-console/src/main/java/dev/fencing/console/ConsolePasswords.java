package dev.fencing.console;

import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;

/**
 * Password hashes for {@link FencingConsole.Builder#user}: PBKDF2 with HMAC-SHA-256, a random
 * 16-byte salt and 210,000 iterations, written {@code pbkdf2-sha256:210000:<salt>:<hash>} (Base64).
 * Make one with {@code fencing console --hash-password} or {@link #hash}; configure only the hash.
 *
 * @since 0.1
 */
public final class ConsolePasswords {

  private static final String PREFIX = "pbkdf2-sha256";
  private static final int ITERATIONS = 210_000;
  private static final int MIN_ITERATIONS = 10_000;
  private static final SecureRandom RANDOM = new SecureRandom();

  private ConsolePasswords() {}

  /**
   * Returns a new hash of {@code password}, with a fresh salt.
   *
   * @throws IllegalArgumentException if the password is shorter than 8 characters
   */
  public static String hash(char[] password) {
    if (password.length < 8) {
      throw new IllegalArgumentException(
          "password must have at least 8 characters, but had " + password.length);
    }
    byte[] salt = new byte[16];
    RANDOM.nextBytes(salt);
    Base64.Encoder b64 = Base64.getEncoder().withoutPadding();
    return PREFIX
        + ':'
        + ITERATIONS
        + ':'
        + b64.encodeToString(salt)
        + ':'
        + b64.encodeToString(derive(password, salt, ITERATIONS));
  }

  /**
   * Checks that {@code hash} is one this class wrote.
   *
   * @throws IllegalArgumentException naming the part that is wrong
   */
  public static void checkHash(String hash) {
    parse(hash);
  }

  /** Returns whether {@code password} is the one {@code hash} was made from, in constant time. */
  public static boolean matches(char[] password, String hash) {
    Parsed parsed = parse(hash);
    byte[] derived = derive(password, parsed.salt, parsed.iterations);
    return MessageDigest.isEqual(derived, parsed.hash);
  }

  private record Parsed(int iterations, byte[] salt, byte[] hash) {}

  private static Parsed parse(String hash) {
    String[] parts = hash.split(":", -1);
    if (parts.length != 4 || !parts[0].equals(PREFIX)) {
      throw new IllegalArgumentException(
          "passwordHash must look like pbkdf2-sha256:<iterations>:<salt>:<hash> (make one with"
              + " fencing console --hash-password), but was '"
              + abbreviated(hash)
              + "'");
    }
    int iterations;
    try {
      iterations = Integer.parseInt(parts[1]);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "passwordHash's iterations must be a number, but was '" + parts[1] + "'", e);
    }
    if (iterations < MIN_ITERATIONS) {
      throw new IllegalArgumentException(
          "passwordHash's iterations must be at least "
              + MIN_ITERATIONS
              + ", but was "
              + iterations);
    }
    try {
      byte[] salt = Base64.getDecoder().decode(parts[2]);
      byte[] derived = Base64.getDecoder().decode(parts[3]);
      if (salt.length < 16 || derived.length != 32) {
        throw new IllegalArgumentException(
            "passwordHash needs a salt of at least 16 bytes and a 32-byte hash, but had "
                + salt.length
                + " and "
                + derived.length);
      }
      return new Parsed(iterations, salt, derived);
    } catch (IllegalArgumentException e) {
      if (e.getMessage() != null && e.getMessage().startsWith("passwordHash")) {
        throw e;
      }
      throw new IllegalArgumentException("passwordHash's salt and hash must be Base64", e);
    }
  }

  private static String abbreviated(String hash) {
    return hash.length() <= 16 ? hash : hash.substring(0, 16) + "...";
  }

  private static byte[] derive(char[] password, byte[] salt, int iterations) {
    PBEKeySpec spec = new PBEKeySpec(password, salt, iterations, 256);
    try {
      return SecretKeyFactory.getInstance("PBKDF2WithHmacSHA256").generateSecret(spec).getEncoded();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("this JDK has no PBKDF2WithHmacSHA256", e);
    } finally {
      spec.clearPassword();
    }
  }
}
