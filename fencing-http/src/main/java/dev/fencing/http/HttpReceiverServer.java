package dev.fencing.http;

import dev.fencing.FencedReceiver;
import dev.fencing.http.internal.JettyReceiverServer;
import dev.fencing.http.internal.ServerConfig;
import dev.fencing.internal.Validate;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;

/**
 * A {@link FencedReceiver} on the network: {@code POST /deliveries} delivers ({@code
 * {"key":..,"epoch":..,"payload":"<JSON text>"}}), {@code POST /fences} raises a key without a
 * delivery ({@code {"key":..,"epoch":..}}, {@link FencedReceiver#fence}), {@code GET /newest?key=}
 * looks up. Every request must be signed with the shared key (see {@link HttpReceiverClient}); an
 * unsigned, forged, replayed or expired request is refused with 401 and reaches nothing.
 *
 * <pre>{@code
 * try (HttpReceiverServer server =
 *     HttpReceiverServer.builder(PostgresFencing.builder(dataSource).build().receiver("ledger"))
 *         .port(8080).sharedKey(key).start()) { ... }
 * }</pre>
 *
 * <p>Answers to a delivery or a fence: 200 {@code {"outcome":"accepted","repeat":false}}, 409
 * {@code {"outcome":"superseded","current":7}} (for a fence: the key holds a newer epoch, which
 * fences all the same); errors are {@code {"error":..,"field":..,"message":..}} with 400 (bad
 * input), 401 (unauthorised), 408 (body too slow), 413 (body too large), 503 (the backing receiver
 * failed; safe to retry at the same epoch).
 *
 * @since 0.1
 */
public final class HttpReceiverServer implements AutoCloseable {

  private final JettyReceiverServer server;

  private HttpReceiverServer(JettyReceiverServer server) {
    this.server = server;
  }

  /**
   * Starts configuring a server in front of {@code backing}.
   *
   * @throws NullPointerException if {@code backing} is null
   */
  public static Builder builder(FencedReceiver backing) {
    return new Builder(Objects.requireNonNull(backing, "backing"));
  }

  /** Returns the port the server listens on (the one chosen, when it was built with port 0). */
  public int port() {
    return server.port();
  }

  /** Returns {@code http://host:port}, the base URI for {@link HttpReceiverClient#builder}. */
  public URI uri() {
    return server.uri();
  }

  /** Stops the server; requests in flight are cut off. */
  @Override
  public void close() {
    server.close();
  }

  /** Configures a server; not thread-safe. {@link #start()} copies the configuration. */
  public static final class Builder {

    private final FencedReceiver backing;
    private String host = "127.0.0.1";
    private int port;
    private byte[] sharedKey = new byte[0];
    private Duration window = Duration.ofSeconds(30);
    private int maxBodyBytes = 1 << 20;
    private Duration idleTimeout = Duration.ofSeconds(30);
    private int maxNonces = 1_000_000;
    private Clock clock = Clock.systemUTC();

    private Builder(FencedReceiver backing) {
      this.backing = backing;
    }

    /** Sets the address to listen on; loopback ({@code 127.0.0.1}) by default. */
    public Builder host(String host) {
      this.host = Objects.requireNonNull(host, "host");
      return this;
    }

    /**
     * Sets the port; 0 (the default) takes a free one.
     *
     * @throws IllegalArgumentException if it is not between 0 and 65535
     */
    public Builder port(int port) {
      this.port = Validate.between("port", port, 0, 65_535);
      return this;
    }

    /**
     * Sets the key requests are signed with; required.
     *
     * @throws IllegalArgumentException if it is shorter than 32 bytes
     */
    public Builder sharedKey(byte[] sharedKey) {
      this.sharedKey = Keys.check(sharedKey);
      return this;
    }

    /**
     * Sets how far a request's timestamp may be from the server's clock, either way; 30 s by
     * default. Nonces are remembered for this long after their timestamp.
     *
     * @throws IllegalArgumentException if it is not between 1 s and 1 h
     */
    public Builder window(Duration window) {
      this.window = Validate.between("window", window, Duration.ofSeconds(1), Duration.ofHours(1));
      return this;
    }

    /**
     * Sets the largest body taken; 1 MiB by default. A larger one is refused with 413.
     *
     * @throws IllegalArgumentException if it is not between 1 KiB and 64 MiB
     */
    public Builder maxBodyBytes(int maxBodyBytes) {
      this.maxBodyBytes = Validate.between("maxBodyBytes", maxBodyBytes, 1024, 64 << 20);
      return this;
    }

    /**
     * Sets how long a connection may stay silent, mid-request or between requests; 30 s by default.
     * A body that stalls longer is refused with 408.
     *
     * @throws IllegalArgumentException if it is not between 100 ms and 1 h
     */
    public Builder idleTimeout(Duration idleTimeout) {
      this.idleTimeout =
          Validate.between("idleTimeout", idleTimeout, Duration.ofMillis(100), Duration.ofHours(1));
      return this;
    }

    /**
     * Sets how many nonces the server remembers at most; 1,000,000 by default. When that many are
     * live within the window, further requests are refused with 503 until some expire.
     *
     * @throws IllegalArgumentException if it is less than 1
     */
    public Builder maxNonces(int maxNonces) {
      if (maxNonces < 1) {
        throw new IllegalArgumentException("maxNonces must be at least 1, but was " + maxNonces);
      }
      this.maxNonces = maxNonces;
      return this;
    }

    /** Sets the clock timestamps are judged on; the system clock by default. */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /**
     * Starts the server; it is listening when this returns.
     *
     * @throws IllegalStateException if no shared key was set, or the port could not be bound
     */
    public HttpReceiverServer start() {
      if (sharedKey.length == 0) {
        throw new IllegalStateException("sharedKey must be set before start()");
      }
      return new HttpReceiverServer(
          JettyReceiverServer.start(
              new ServerConfig(
                  backing,
                  host,
                  port,
                  sharedKey,
                  window,
                  maxBodyBytes,
                  idleTimeout,
                  maxNonces,
                  clock)));
    }
  }
}
