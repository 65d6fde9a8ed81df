package dev.fencing.http.internal;

import java.net.URI;
import java.time.Clock;
import java.time.Duration;

/**
 * What a client was built with; see {@code HttpReceiverClient.Builder} for each value's meaning.
 */
public record ClientConfig(
    URI base,
    byte[] sharedKey,
    int maxAttempts,
    Duration firstBackoff,
    Duration connectTimeout,
    Duration requestTimeout,
    Clock clock) {

  /** Copies the key, so that the built client cannot be changed through the caller's array. */
  public ClientConfig {
    sharedKey = sharedKey.clone();
  }
}
