package dev.fencing.console.internal;

import dev.fencing.console.ConsoleUser;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Comparator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * The console's own sessions: a random id in an {@code HttpOnly; SameSite=Strict} cookie, the user
 * who logged in, and the session's CSRF token. Kept in memory; a restart logs everyone out.
 */
final class Sessions {

  static final Duration IDLE = Duration.ofHours(8);
  static final int MAX = 10_000;
  private static final SecureRandom RANDOM = new SecureRandom();

  /** What an action did, shown once on the next page. */
  record Flash(String message, boolean error) {}

  /** One browser's session. */
  static final class Session {
    final String id;
    final String csrf;
    final @Nullable ConsoleUser user;
    volatile Instant lastSeen;
    private @Nullable Flash flash;

    Session(String id, String csrf, @Nullable ConsoleUser user, Instant now) {
      this.id = id;
      this.csrf = csrf;
      this.user = user;
      this.lastSeen = now;
    }

    /** Keeps what an action did, for the next page this session shows (once). */
    synchronized void flash(String message, boolean error) {
      this.flash = new Flash(message, error);
    }

    /** Returns the message kept by {@link #flash} and forgets it, or null. */
    synchronized @Nullable Flash takeFlash() {
      Flash kept = flash;
      flash = null;
      return kept;
    }

    boolean csrfMatches(@Nullable String token) {
      return token != null
          && MessageDigest.isEqual(
              csrf.getBytes(java.nio.charset.StandardCharsets.US_ASCII),
              token.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
    }
  }

  private final Map<String, Session> byId = new ConcurrentHashMap<>();

  /** Returns the live session with that id, or null. */
  @Nullable Session find(@Nullable String id, Instant now) {
    if (id == null) {
      return null;
    }
    Session session = byId.get(id);
    if (session == null) {
      return null;
    }
    if (session.lastSeen.plus(IDLE).isBefore(now)) {
      byId.remove(id);
      return null;
    }
    session.lastSeen = now;
    return session;
  }

  /** Opens a new session for {@code user} (null before login), with fresh id and CSRF token. */
  Session open(@Nullable ConsoleUser user, Instant now) {
    if (byId.size() >= MAX) {
      evict(now);
    }
    Session session = new Session(random(), random(), user, now);
    byId.put(session.id, session);
    return session;
  }

  /** Ends a session (logout, or a login that replaces it: no session fixation). */
  void close(Session session) {
    byId.remove(session.id);
  }

  int size() {
    return byId.size();
  }

  private void evict(Instant now) {
    byId.values().removeIf(s -> s.lastSeen.plus(IDLE).isBefore(now));
    while (byId.size() >= MAX) {
      byId.values().stream()
          .min(Comparator.comparing(s -> s.lastSeen))
          .ifPresent(oldest -> byId.remove(oldest.id));
    }
  }

  static String random() {
    byte[] bytes = new byte[32];
    RANDOM.nextBytes(bytes);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }
}
