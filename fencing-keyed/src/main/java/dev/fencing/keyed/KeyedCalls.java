package dev.fencing.keyed;

import dev.fencing.Epoch;
import dev.fencing.keyed.internal.Config;
import dev.fencing.keyed.internal.HttpKeyedCalls;
import dev.fencing.keyed.internal.Keys;
import java.net.URI;
import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Calls to an HTTP service that knows nothing of epochs but deduplicates on an idempotency key (as
 * Stripe does with {@code Idempotency-Key}).
 *
 * <pre>{@code
 * try (KeyedCalls calls = KeyedCalls.builder(URI.create("https://pay.example")).build()) {
 *   KeyedOutcome outcome = calls.post(CallId.of(lease, "charge"), lease.epoch(), "/charges", json,
 *       LeaseCheck.renewing(queue, lease, Duration.ofSeconds(30)));
 * }
 * }</pre>
 *
 * <p><b>The key</b> of a call is {@link #keyOf} its {@link CallId}: the lower-case hex SHA-256 of
 * {@code fencing-keyed/v1 NUL namespace NUL job NUL step} in UTF-8. It never holds the epoch and is
 * never random, so every retry and every epoch of the same job and step sends the same key, and a
 * zombie's call and its successor's are one effect at the service. The epoch goes along in its own
 * header, for the service's logs.
 *
 * <p><b>An unknown outcome</b> (no answer in time, a dropped connection, a 5xx, 408, 409, 425 or
 * 429) is resolved by looking the key up ({@code GET} the lookup path) before the call is ever sent
 * again: 200 means done, and its body is the result; 404 means not there, and the call is sent
 * again with the same key; anything else is looked up again. When the attempts run out the outcome
 * is {@link KeyedOutcome.Unknown}, never a success. A service without a lookup should answer 404:
 * the resend then relies on its deduplication alone.
 *
 * <p>Thread-safe; close it to release the HTTP client.
 */
public interface KeyedCalls extends AutoCloseable {

  /** The namespace used when none is given. */
  String DEFAULT_NAMESPACE = "fencing";

  /** The lookup path used when none is given. */
  String DEFAULT_LOOKUP_PATH = "/operations/{key}";

  /** The key header used when none is given. */
  String DEFAULT_KEY_HEADER = "Idempotency-Key";

  /** The epoch header used when none is given. */
  String DEFAULT_EPOCH_HEADER = "Fencing-Epoch";

  /**
   * Starts configuring calls to the service at {@code baseUri}.
   *
   * @throws IllegalArgumentException naming {@code baseUri} if it is not an {@code
   *     http(s)://host[:port][/path]} URL without query, fragment or user
   */
  static Builder builder(@Nullable URI baseUri) {
    return new Builder(baseUri);
  }

  /**
   * Returns the idempotency key of {@code id}: the same for every retry and every epoch.
   *
   * @throws NullPointerException if {@code id} is null
   */
  String keyOf(CallId id);

  /**
   * POSTs {@code body} (JSON) to {@code path} under the key of {@code id}, with {@code epoch} in
   * the epoch header, asking {@code check} before each time the call is sent.
   *
   * @param path the path under the base URI, starting with {@code /}
   * @return what the call came to; {@link KeyedOutcome.Unknown} if the attempts ran out without an
   *     answer that settles it
   * @throws IllegalArgumentException naming {@code path} if it does not start with {@code /} or is
   *     not a valid URI path
   * @throws NullPointerException if a reference is null
   */
  KeyedOutcome post(CallId id, Epoch epoch, String path, String body, LeaseCheck check);

  /**
   * POSTs without a lease check, as {@link #post(CallId, Epoch, String, String, LeaseCheck)} would
   * with {@link LeaseCheck#none()}.
   */
  default KeyedOutcome post(CallId id, Epoch epoch, String path, String body) {
    return post(id, epoch, path, body, LeaseCheck.none());
  }

  /** Releases the HTTP client; calls in flight finish first. */
  @Override
  void close();

  /** Configures {@link KeyedCalls}; every setting is checked when set. */
  final class Builder {
    private final URI baseUri;
    private String namespace = DEFAULT_NAMESPACE;
    private Duration connectTimeout = Duration.ofSeconds(5);
    private Duration callTimeout = Duration.ofSeconds(10);
    private int maxAttempts = 3;
    private Duration retryDelay = Duration.ofMillis(200);
    private String lookupPath = DEFAULT_LOOKUP_PATH;
    private boolean lookupFirst;
    private String keyHeader = DEFAULT_KEY_HEADER;
    private String epochHeader = DEFAULT_EPOCH_HEADER;

    private Builder(@Nullable URI baseUri) {
      this.baseUri = Config.baseUri(baseUri);
    }

    /**
     * The part of every key that keeps this system's keys apart from another's at the same service:
     * 1 to 200 of A-Z a-z 0-9 {@code . _ : / -}; default {@value KeyedCalls#DEFAULT_NAMESPACE}.
     * Changing it changes every key.
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
     * {@value KeyedCalls#DEFAULT_LOOKUP_PATH}.
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
     * KeyedCalls#DEFAULT_KEY_HEADER} and {@value KeyedCalls#DEFAULT_EPOCH_HEADER}.
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
