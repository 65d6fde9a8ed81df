package dev.fencing.cli.internal;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;

/**
 * Durations as an operator types them: {@code 7d}, {@code 12h}, {@code 30m}, {@code 800ms}. Every
 * {@link Duration} option of the command line is read by its {@link Converter}.
 */
public final class Durations {

  private static final Pattern SHORT = Pattern.compile("(\\d{1,9})(ms|s|m|h|d)");

  private Durations() {}

  /**
   * @throws IllegalArgumentException naming the text, if it is neither short form nor ISO-8601
   */
  static Duration parse(String text) {
    String t = text.trim().toLowerCase(Locale.ROOT);
    Matcher m = SHORT.matcher(t);
    if (m.matches()) {
      long n = Long.parseLong(m.group(1));
      return switch (m.group(2)) {
        case "ms" -> Duration.ofMillis(n);
        case "s" -> Duration.ofSeconds(n);
        case "m" -> Duration.ofMinutes(n);
        case "h" -> Duration.ofHours(n);
        default -> Duration.ofDays(n);
      };
    }
    try {
      return Duration.parse(text.trim().toUpperCase(Locale.ROOT));
    } catch (DateTimeParseException e) {
      throw new IllegalArgumentException(
          "a duration must be like 7d, 12h, 30m, 10s, 800ms or P7D, but was '" + text + "'");
    }
  }

  /** {@code 7d}, {@code 12h}, {@code 90s}: the largest whole unit. */
  static String show(Duration d) {
    if (d.toMillis() % 1000 != 0) {
      return d.toMillis() + "ms";
    }
    long s = d.toSeconds();
    if (s % 86_400 == 0) {
      return s / 86_400 + "d";
    }
    if (s % 3600 == 0) {
      return s / 3600 + "h";
    }
    if (s % 60 == 0) {
      return s / 60 + "m";
    }
    return s + "s";
  }

  /** {@code 333ms}, {@code 1.67s}, {@code 64s}: for measures, to three significant digits. */
  static String human(Duration d) {
    double ms = d.toNanos() / 1e6;
    if (ms < 1000) {
      return Math.round(ms) + "ms";
    }
    return new java.math.BigDecimal(ms / 1000, new java.math.MathContext(3))
            .stripTrailingZeros()
            .toPlainString()
        + "s";
  }

  /**
   * picocli's converter of every {@link Duration} option, registered once for the whole command
   * line: a bad duration is a usage error naming the text.
   */
  public static final class Converter implements CommandLine.ITypeConverter<Duration> {
    @Override
    public Duration convert(String value) {
      try {
        return parse(value);
      } catch (IllegalArgumentException e) {
        throw new CommandLine.TypeConversionException(e.getMessage());
      }
    }
  }
}
