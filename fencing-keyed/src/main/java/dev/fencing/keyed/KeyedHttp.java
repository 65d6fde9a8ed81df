package dev.fencing.keyed;

import dev.fencing.keyed.internal.Config;
import dev.fencing.keyed.internal.HttpKeyedCalls;
import dev.fencing.keyed.internal.Keys;
import java.net.URI;
import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The front door of keyed calls over HTTP: {@code KeyedHttp.builder(baseUri)...build()} gives the
 * {@link KeyedCalls} to a service that deduplicates on an idempotency key.
 *
 * @since 0.1
 */
public final class KeyedHttp {

  private KeyedHttp() {}

  /**
   * Starts configuring calls to the service at {@code baseUri}.
   *
   * @throws IllegalArgumentException naming {@code baseUri} if it is not an {@code
   *     http(s)://host[:port][/path]} URL without query, fragment or user
   */
  static Builder builder(@Nullable URI baseUri) {
    return new Builder(baseUri);
  }

  /** Configures {@link KeyedCalls}; every setting is checked when set. */
  public static final class Builder {
    private final URI baseUri;
    private String namespace = KeyedCalls.DEFAULT_NAMESPACE;
    private Duration connectTimeout = Duration.ofSeconds(5);
    private Duration callTimeout = Duration.ofSeconds(10);
    private int maxAttempts = 3;
    private Duration retryDelay = Duration.ofMillis(200);
    private String lookupPath = KeyedCalls.DEFAULT_LOOKUP_PATH;
    private boolean lookupFirst;
    private String keyHeader = KeyedCalls.DEFAULT_KEY_HEADER;
    private String epochHeader = KeyedCalls.DEFAULT_EPOCH_HEADER;

    private Builder(@Nullable URI baseUri) {
      this.baseUri = Config.baseUri(baseUri);
    }

    /**
     * The part of every key that keeps this system's keys apart from another's at the same service:
     * 1 to 200 of A-Z a-z 0-9 {@code . _ : / -}; default {@value
     * KeyedCalls#KeyedCalls.DEFAULT_NAMESPACE}. Changing it changes every key.
     *
     * @throws IllegalArgumentException naming {@code namespace} and the value
     */
    public Builder namespace(@Nullable String namespace) {
      this.namespace = Config.namespace(namespace);
      return this;
    }

    /**
     * How long connecting may take, 1 ms to 10 min; default 5 s.
     *
     * @throws IllegalArgumentException naming {@code connectTimeout} and the value
     */
    public Builder connectTimeout(@Nullable Duration connectTimeout) {
      this.connectTimeout = Config.timeout("connectTimeout", connectTimeout);
      return this;
    }

    /**
     * How long one request (a call or a lookup) may wait for its answer, 1 ms to 10 min; default 10
     * s. A call without an answer in time has an unknown outcome.
     *
     * @throws IllegalArgumentException naming {@code callTimeout} and the value
     */
    public Builder callTimeout(@Nullable Duration callTimeout) {
      this.callTimeout = Config.timeout("callTimeout", callTimeout);
      return this;
    }

    /**
     * How many times a call is sent at most, and its key looked up at most, 1 to 100; default 3.
     *
     * @throws IllegalArgumentException naming {@code maxAttempts} and the value
     */
    public Builder maxAttempts(int maxAttempts) {
      this.maxAttempts = Config.maxAttempts(maxAttempts);
      return this;
    }

    /**
     * The pause before each lookup and each resend, zero to 10 min; default 200 ms.
     *
     * @throws IllegalArgumentException naming {@code retryDelay} and the value
     */
    public Builder retryDelay(@Nullable Duration retryDelay) {
      this.retryDelay = Config.retryDelay(retryDelay);
      return this;
    }

    /**
     * The path a key is looked up at, starting with {@code /} and holding {@code {key}}; default
     * {@value KeyedCalls#KeyedCalls.DEFAULT_LOOKUP_PATH}.
     *
     * @throws IllegalArgumentException naming {@code lookupPath} and the value
     */
    public Builder lookupPath(@Nullable String lookupPath) {
      this.lookupPath = Config.lookupPath(baseUri, lookupPath);
      return this;
    }

    /**
     * Whether the key is also looked up before a call is first sent; default false. Turn it on for
     * a service whose lookup is more reliable than its deduplication: a new owner then finds what a
     * zombie's call did (its answer lost) instead of sending it again. Costs one lookup per call.
     */
    public Builder lookupFirst(boolean lookupFirst) {
      this.lookupFirst = lookupFirst;
      return this;
    }

    /**
     * The headers the key and the epoch are sent in; defaults {@value
     * KeyedCalls#KeyedCalls.DEFAULT_KEY_HEADER} and {@value
     * KeyedCalls#KeyedCalls.DEFAULT_EPOCH_HEADER}.
     *
     * @throws IllegalArgumentException naming {@code keyHeader} or {@code epochHeader} if it is not
     *     a header name, one the HTTP client sets itself, or both are the same
     */
    public Builder headers(@Nullable String keyHeader, @Nullable String epochHeader) {
      Config.headers(keyHeader, epochHeader);
      this.keyHeader = Objects.requireNonNull(keyHeader);
      this.epochHeader = Objects.requireNonNull(epochHeader);
      return this;
    }

    /** Builds the client; nothing is sent until the first call. */
    public KeyedCalls build() {
      Config config =
          new Config(
              baseUri,
              namespace,
              connectTimeout,
              callTimeout,
              maxAttempts,
              retryDelay,
              lookupPath,
              lookupFirst,
              keyHeader,
              epochHeader);
      return new HttpKeyedCalls(config, Keys.STABLE, true);
    }
  }
}
