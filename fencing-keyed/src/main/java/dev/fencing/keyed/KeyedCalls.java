package dev.fencing.keyed;

import dev.fencing.Epoch;

/**
 * Calls to an HTTP service that knows nothing of epochs but deduplicates on an idempotency key (as
 * Stripe does with {@code Idempotency-Key}).
 *
 * <pre>{@code
 * try (KeyedCalls calls = KeyedHttp.builder(URI.create("https://pay.example")).build()) {
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
 *
 * @since 0.1
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
}
