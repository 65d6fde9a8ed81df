package dev.fencing.http.internal;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * HMAC-SHA256 over a request's method, path and query, timestamp, nonce and the SHA-256 of its
 * body, one per line after a fixed first line. Both sides build the same text from what travels.
 */
public final class Signature {

  /** The header carrying the signature, lower-case hex. */
  public static final String SIGNATURE = "Fencing-Signature";

  /** The header carrying the sender's clock, milliseconds since the Unix epoch. */
  public static final String TIMESTAMP = "Fencing-Timestamp";

  /** The header carrying a fresh request id; a server accepts each one once. */
  public static final String NONCE = "Fencing-Nonce";

  /** The longest nonce a server takes. */
  public static final int MAX_NONCE_LENGTH = 64;

  private static final HexFormat HEX = HexFormat.of();

  private Signature() {}

  /** Returns the signature, in hex, of a request with these parts under {@code key}. */
  public static String sign(
      byte[] key, String method, String pathAndQuery, long timestamp, String nonce, byte[] body) {
    String text =
        "FENCING-HMAC-SHA256\n"
            + method
            + '\n'
            + pathAndQuery
            + '\n'
            + timestamp
            + '\n'
            + nonce
            + '\n'
            + HEX.formatHex(sha256(body));
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(key, "HmacSHA256"));
      return HEX.formatHex(mac.doFinal(text.getBytes(StandardCharsets.UTF_8)));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is missing from this JDK", e);
    }
  }

  /** Compares two signatures in time that does not depend on where they differ. */
  public static boolean matches(String expected, String given) {
    return MessageDigest.isEqual(
        expected.getBytes(StandardCharsets.US_ASCII), given.getBytes(StandardCharsets.US_ASCII));
  }

  private static byte[] sha256(byte[] body) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(body);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("SHA-256 is missing from this JDK", e);
    }
  }
}
