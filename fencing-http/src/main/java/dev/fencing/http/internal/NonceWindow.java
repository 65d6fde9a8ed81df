package dev.fencing.http.internal;

import java.util.concurrent.ConcurrentHashMap;

/**
 * The nonces of accepted requests, each kept until its request's timestamp leaves the window, so a
 * request replayed while its timestamp would still pass is refused. At most {@code capacity} are
 * kept; when that many are live, new requests are refused until a sweep (at most one a second, so
 * that a full window costs one scan a second, not one per request) finds some expired.
 */
final class NonceWindow {

  private final ConcurrentHashMap<String, Long> expiries = new ConcurrentHashMap<>();
  private final int capacity;
  private volatile long nextSweep;

  NonceWindow(int capacity) {
    this.capacity = capacity;
  }

  /** The answer to one request's nonce. */
  enum Verdict {
    FRESH,
    REPLAYED,
    FULL
  }

  /**
   * Records {@code nonce} as used until {@code expiresAt} (milliseconds) unless it is already
   * recorded and not yet expired at {@code now}.
   */
  Verdict use(String nonce, long expiresAt, long now) {
    if (now >= nextSweep) {
      nextSweep = now + 1_000;
      expiries.values().removeIf(expiry -> expiry <= now);
    }
    Long live = expiries.get(nonce);
    if (live != null && live > now) {
      return Verdict.REPLAYED;
    }
    if (expiries.size() >= capacity) {
      return Verdict.FULL;
    }
    Long[] previous = new Long[1];
    expiries.compute(
        nonce,
        (key, expiry) -> {
          if (expiry != null && expiry > now) {
            previous[0] = expiry;
            return expiry;
          }
          return expiresAt;
        });
    return previous[0] == null ? Verdict.FRESH : Verdict.REPLAYED;
  }
}
