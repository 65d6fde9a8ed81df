package dev.fencing.keyed.internal;

import dev.fencing.Epoch;
import dev.fencing.keyed.CallId;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** How a call's idempotency key is derived. */
@FunctionalInterface
public interface Keys {

  /** The prefix of every digested text; a new derivation takes a new version. */
  String VERSION = "fencing-keyed/v1";

  /**
   * The one derivation the library uses: the lower-case hex SHA-256 of the UTF-8 bytes of {@code
   * fencing-keyed/v1 NUL namespace NUL job NUL step}. None of the parts can hold a NUL, so two ids
   * never share a text; the epoch is not part of it, so every retry and every epoch of the same job
   * and step sends the same key.
   */
  Keys STABLE = (namespace, id, epoch) -> sha256(namespace, id);

  /** Returns the key of {@code id}, called by {@code epoch}. */
  String key(String namespace, CallId id, Epoch epoch);

  /** Returns the stable key of {@code id} in {@code namespace}. */
  static String sha256(String namespace, CallId id) {
    String text = VERSION + '\0' + namespace + '\0' + id.job() + '\0' + id.step();
    try {
      MessageDigest digest = MessageDigest.getInstance("SHA-256");
      return HexFormat.of().formatHex(digest.digest(text.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java platform has SHA-256", e);
    }
  }
}
