package dev.fencing.postgres.internal;

import java.sql.SQLException;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/** What PostgreSQL text can hold, and how a refusal of the store is told to the caller. */
public final class Text {

  /** How deep a cause chain is searched; a chain may loop. */
  static final int MAX_CAUSES = 16;

  private static final char REPLACEMENT = '\uFFFD';

  private Text() {}

  /**
   * The first of {@code failure} and its causes that is a {@code type} and passes {@code which}, or
   * null. Searched at most {@link #MAX_CAUSES} deep: a cause chain may loop ({@code a.initCause(b)}
   * after {@code b} was made with cause {@code a}).
   */
  static <E extends Throwable> @Nullable E firstCause(
      Throwable failure, Class<E> type, Predicate<? super E> which) {
    Throwable t = failure;
    for (int depth = 0; t != null && depth < MAX_CAUSES; depth++, t = t.getCause()) {
      if (type.isInstance(t) && which.test(type.cast(t))) {
        return type.cast(t);
      }
    }
    return null;
  }

  /** Whether {@code e}'s SQLSTATE is of class {@code stateClass} (its first two characters). */
  static boolean ofClass(SQLException e, String stateClass) {
    return e.getSQLState() != null && e.getSQLState().startsWith(stateClass);
  }

  /**
   * Returns {@code value} if the JDBC driver can send it as it is: no NUL character (PostgreSQL
   * text cannot hold one) and no lone surrogate (UTF-8 cannot encode one; the driver would send a
   * question mark instead).
   *
   * @throws IllegalArgumentException naming {@code parameter} and the value otherwise
   */
  public static String requireSendable(String parameter, String value) {
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      String problem = null;
      if (c == '\u0000') {
        problem = "a NUL character";
      } else if (Character.isHighSurrogate(c)
          && (i + 1 == value.length() || !Character.isLowSurrogate(value.charAt(i + 1)))) {
        problem = "a lone high surrogate";
      } else if (Character.isLowSurrogate(c)
          && (i == 0 || !Character.isHighSurrogate(value.charAt(i - 1)))) {
        problem = "a lone low surrogate";
      }
      if (problem != null) {
        throw new IllegalArgumentException(
            parameter
                + " must be JSON that PostgreSQL jsonb accepts, but was "
                + quote(value)
                + " ("
                + problem
                + " at index "
                + i
                + " cannot be stored)");
      }
    }
    return value;
  }

  /**
   * Returns {@code text} as PostgreSQL can store it: NUL characters and lone surrogates replaced by
   * U+FFFD, cut to at most {@code max} characters without splitting a surrogate pair.
   */
  public static String storable(String text, int max) {
    StringBuilder out = new StringBuilder(Math.min(text.length(), max));
    for (int i = 0; i < text.length() && out.length() < max; i++) {
      char c = text.charAt(i);
      if (Character.isHighSurrogate(c)
          && i + 1 < text.length()
          && Character.isLowSurrogate(text.charAt(i + 1))) {
        if (out.length() + 2 > max) {
          break;
        }
        out.append(c).append(text.charAt(++i));
      } else if (c == '\u0000' || Character.isSurrogate(c)) {
        out.append(REPLACEMENT);
      } else {
        out.append(c);
      }
    }
    return out.toString();
  }

  /**
   * The value in quotes, cut at 120 characters, as {@code dev.fencing.internal.Validate} shows
   * values.
   */
  public static String quote(String value) {
    String shown = value.length() > 120 ? value.substring(0, 120) + "..." : value;
    return "'" + shown + "'";
  }

  /**
   * Returns the store's refusal of a value (an SQLSTATE of class 22, data exception, such as
   * invalid JSON) in {@code failure} or its causes, or null if it is some other failure.
   */
  public static @Nullable SQLException dataException(Throwable failure) {
    return firstCause(failure, SQLException.class, e -> ofClass(e, "22"));
  }

  /** The refusal for {@code value} of {@code parameter}, naming both and what the store said. */
  public static IllegalArgumentException invalidJson(
      String parameter, String value, SQLException cause) {
    String said = String.valueOf(cause.getMessage()).replaceAll("\\s+", " ").trim();
    return new IllegalArgumentException(
        parameter
            + " must be JSON that PostgreSQL jsonb accepts, but was "
            + quote(value)
            + " ("
            + said
            + ")",
        cause);
  }
}
