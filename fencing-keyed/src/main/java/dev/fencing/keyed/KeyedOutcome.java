package dev.fencing.keyed;

import dev.fencing.Epoch;
import java.util.Objects;

/**
 * What one keyed call came to: {@link Done}, {@link Refused} by the service, {@link FencedOff}
 * before it was sent, or {@link Unknown}. Only {@link Done} means the effect happened; {@link
 * Unknown} means it may or may not have.
 *
 * @since 0.1
 */
public sealed interface KeyedOutcome
    permits KeyedOutcome.Done, KeyedOutcome.Refused, KeyedOutcome.FencedOff, KeyedOutcome.Unknown {

  /** The call's idempotency key. */
  String key();

  /** The epoch that made the call (sent along for the service's logs, not part of the key). */
  Epoch epoch();

  /** Checks what every outcome has, the key, the epoch and a text, which {@code name} names. */
  private static void require(String key, Epoch epoch, String name, String text) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(epoch, "epoch");
    Objects.requireNonNull(text, name);
  }

  /**
   * The service has the effect, once, under this key.
   *
   * @param status the HTTP status of the answer the body came with (of the lookup, if looked up)
   * @param body the service's result for this key
   * @param lookedUp true when the call's own answer was lost and the result was found by looking
   *     the key up
   */
  record Done(String key, Epoch epoch, int status, String body, boolean lookedUp)
      implements KeyedOutcome {
    /**
     * @throws NullPointerException if a reference is null
     */
    public Done {
      require(key, epoch, "body", body);
    }
  }

  /**
   * The service answered that it will not do it (a 4xx other than 404 on a lookup, 408, 409, 425 or
   * 429, or a 3xx/1xx); not retried.
   *
   * @param status the HTTP status
   * @param body what the service said
   */
  record Refused(String key, Epoch epoch, int status, String body) implements KeyedOutcome {
    /**
     * @throws NullPointerException if a reference is null
     */
    public Refused {
      require(key, epoch, "body", body);
    }
  }

  /**
   * The lease check said the lease is no longer current, so the call was not sent (again). If an
   * earlier attempt's answer was lost, a later owner's call under the same key will find it.
   *
   * @param reason why the lease is not current
   */
  record FencedOff(String key, Epoch epoch, String reason) implements KeyedOutcome {
    /**
     * @throws NullPointerException if a reference is null
     */
    public FencedOff {
      require(key, epoch, "reason", reason);
    }
  }

  /**
   * Every attempt ended without an answer that settles it: the effect may or may not have happened.
   * Look the key up (or call again with the same key) before acting on it; never treat it as done.
   *
   * @param calls how many times the call was sent
   * @param lookups how many times the key was looked up
   * @param message what happened, starting with "outcome unknown"
   */
  record Unknown(String key, Epoch epoch, int calls, int lookups, String message)
      implements KeyedOutcome {
    /**
     * @throws NullPointerException if a reference is null
     */
    public Unknown {
      require(key, epoch, "message", message);
    }
  }
}
