package dev.fencing.http;

import java.util.Objects;

/** The shared key's check, the same for server and client. */
final class Keys {

  /** The shortest key taken: 32 bytes, the length of an HMAC-SHA256 output. */
  static final int MIN_LENGTH = 32;

  private Keys() {}

  static byte[] check(byte[] key) {
    Objects.requireNonNull(key, "sharedKey");
    if (key.length < MIN_LENGTH) {
      throw new IllegalArgumentException(
          "sharedKey must be at least " + MIN_LENGTH + " bytes, but was " + key.length);
    }
    return key.clone();
  }
}
