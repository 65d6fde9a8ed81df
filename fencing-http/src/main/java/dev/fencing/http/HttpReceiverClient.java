package dev.fencing.http;

import dev.fencing.FencedReceiver;
import dev.fencing.http.internal.ClientConfig;
import dev.fencing.http.internal.SigningReceiverClient;
import dev.fencing.internal.Validate;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;

/**
 * A {@link FencedReceiver} that is an {@link HttpReceiverServer} elsewhere. Each request is signed
 * with the shared key; a transient failure (no connection, a timeout, a 5xx) is retried with the
 * same key, epoch and payload, so an attempt that had landed makes the retry a repeat, never a
 * second effect.
 *
 * <pre>{@code
 * FencedReceiver ledger = HttpReceiverClient.builder(URI.create("http://ledger:8080"), key).build();
 * FencedOffException.requireAccepted(ledger.deliver(lease, "{\"debit\": 100}"));
 * }</pre>
 *
 * <p>Its {@code deliver}, {@code fence} and {@code newest} throw {@link IllegalArgumentException}
 * with the server's message for bad input (400), and {@link HttpReceiverException} when refused
 * otherwise (401 unauthorised) or when the retries ran out.
 *
 * @since 0.1
 */
public final class HttpReceiverClient {

  private HttpReceiverClient() {}

  /**
   * Starts configuring a client for the server at {@code base}.
   *
   * @param base {@code http://host:port}
   * @param sharedKey the server's key, at least 32 bytes
   * @throws IllegalArgumentException if {@code base} is not an absolute http(s) URI or the key is
   *     too short
   */
  public static Builder builder(URI base, byte[] sharedKey) {
    Objects.requireNonNull(base, "base");
    if (!"http".equals(base.getScheme()) && !"https".equals(base.getScheme())) {
      throw new IllegalArgumentException("base must be an http or https URI, but was " + base);
    }
    return new Builder(base, Keys.check(sharedKey));
  }

  /** Configures a client; not thread-safe. The client it builds is immutable and thread-safe. */
  public static final class Builder {

    private final URI base;
    private final byte[] sharedKey;
    private int maxAttempts = 5;
    private Duration firstBackoff = Duration.ofMillis(100);
    private Duration connectTimeout = Duration.ofSeconds(5);
    private Duration requestTimeout = Duration.ofSeconds(10);
    private Clock clock = Clock.systemUTC();

    private Builder(URI base, byte[] sharedKey) {
      this.base = base;
      this.sharedKey = sharedKey;
    }

    /**
     * Sets how many times a call is attempted in all; 5 by default.
     *
     * @throws IllegalArgumentException if it is not between 1 and 100
     */
    public Builder maxAttempts(int maxAttempts) {
      this.maxAttempts = Validate.between("maxAttempts", maxAttempts, 1, 100);
      return this;
    }

    /**
     * Sets the wait before the first retry, doubled (with jitter) before each next one; 100 ms by
     * default.
     *
     * @throws IllegalArgumentException if it is not between 1 ms and 1 min
     */
    public Builder firstBackoff(Duration firstBackoff) {
      this.firstBackoff =
          Validate.between(
              "firstBackoff", firstBackoff, Duration.ofMillis(1), Duration.ofMinutes(1));
      return this;
    }

    /**
     * Sets how long connecting may take; 5 s by default.
     *
     * @throws IllegalArgumentException if it is not between 1 ms and 10 min
     */
    public Builder connectTimeout(Duration connectTimeout) {
      this.connectTimeout = timeout("connectTimeout", connectTimeout);
      return this;
    }

    /**
     * Sets how long one attempt may wait for its answer; 10 s by default.
     *
     * @throws IllegalArgumentException if it is not between 1 ms and 10 min
     */
    public Builder requestTimeout(Duration requestTimeout) {
      this.requestTimeout = timeout("requestTimeout", requestTimeout);
      return this;
    }

    /** Sets the clock requests are stamped with; the system clock by default. */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /** Builds the client. It connects on its first call. */
    public FencedReceiver build() {
      return new SigningReceiverClient(
          new ClientConfig(
              base, sharedKey, maxAttempts, firstBackoff, connectTimeout, requestTimeout, clock));
    }

    /** Returns {@code value} if it is a timeout this client takes: between 1 ms and 10 min. */
    private static Duration timeout(String parameter, Duration value) {
      return Validate.between(parameter, value, Duration.ofMillis(1), Duration.ofMinutes(10));
    }
  }
}
