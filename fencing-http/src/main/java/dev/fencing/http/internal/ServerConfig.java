package dev.fencing.http.internal;

import dev.fencing.FencedReceiver;
import java.time.Clock;
import java.time.Duration;

/**
 * What a server was built with; see {@code HttpReceiverServer.Builder} for each value's meaning.
 */
public record ServerConfig(
    FencedReceiver backing,
    String host,
    int port,
    byte[] sharedKey,
    Duration window,
    int maxBodyBytes,
    Duration idleTimeout,
    int maxNonces,
    Clock clock) {

  /** Copies the key, so that the built server cannot be changed through the caller's array. */
  public ServerConfig {
    sharedKey = sharedKey.clone();
  }
}
