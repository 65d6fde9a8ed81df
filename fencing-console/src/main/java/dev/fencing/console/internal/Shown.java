package dev.fencing.console.internal;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/** Values as the pages write them. */
final class Shown {

  private static final DateTimeFormatter TIME =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS'Z'", Locale.ROOT)
          .withZone(ZoneOffset.UTC);

  private Shown() {}

  static String time(@Nullable Instant at) {
    return at == null ? "—" : TIME.format(at);
  }

  /** {@code 3h 12m}, {@code 4m 03s}, {@code 850 ms}: two units at most. */
  static String duration(@Nullable Duration d) {
    if (d == null) {
      return "—";
    }
    if (d.isNegative()) {
      return "in " + duration(d.negated());
    }
    long ms = d.toMillis();
    if (ms < 1000) {
      return ms + " ms";
    }
    long s = d.toSeconds();
    if (s < 60) {
      return String.format(Locale.ROOT, "%d.%01d s", s, (ms % 1000) / 100);
    }
    if (s < 3600) {
      return String.format(Locale.ROOT, "%dm %02ds", s / 60, s % 60);
    }
    if (s < 86_400) {
      return String.format(Locale.ROOT, "%dh %02dm", s / 3600, (s % 3600) / 60);
    }
    return String.format(Locale.ROOT, "%dd %02dh", s / 86_400, (s % 86_400) / 3600);
  }

  static String text(@Nullable String s) {
    return s == null ? "—" : s;
  }

  static String cut(@Nullable String s, int max) {
    if (s == null) {
      return "—";
    }
    return s.length() <= max ? s : s.substring(0, max) + "…";
  }

  static String lower(Enum<?> e) {
    return e.name().toLowerCase(Locale.ROOT);
  }
}
