package dev.fencing.benchmarks;

import static dev.fencing.internal.Validate.quote;

import dev.fencing.tuning.LeaseModel;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The lease tuning's command line, parsed: {@code --leases 1s,5s,30s --pauses
 * p50=20ms,p99=800ms,max=2s [--quick] [--heartbeats-per-lease 3] [--max-zombie-rate 0.1%]
 * [--safety-factor 3]}.
 */
record LeaseTuningArguments(
    List<Duration> leases, LeaseModel pauses, LeaseTuningSettings settings) {

  private static final List<String> KEYS = List.of("p50", "p99", "max");

  private static final Pattern DURATION = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*(us|ms|s|m|h)");

  /**
   * @throws IllegalArgumentException naming the option or item that is missing, unknown or
   *     malformed, with its value
   */
  static LeaseTuningArguments parse(String[] args) {
    String leases = "1s,5s,30s";
    String pauses = "p50=20ms,p99=800ms,max=2s";
    LeaseTuningSettings d = LeaseTuningSettings.defaults(false);
    int beats = d.heartbeatsPerLease();
    double rate = d.maxFalseZombieRate();
    double safety = d.safetyFactor();
    boolean quick = false;
    for (int i = 0; i < args.length; i++) {
      String option = args[i];
      if (option.equals("--quick")) {
        quick = true;
        continue;
      }
      String value = value(args, ++i, option);
      switch (option) {
        case "--leases" -> leases = value;
        case "--pauses" -> pauses = value;
        case "--heartbeats-per-lease" -> beats = (int) number(option, value);
        case "--max-zombie-rate" -> rate = rate(option, value);
        case "--safety-factor" -> safety = number(option, value);
        default -> throw new IllegalArgumentException("unknown option " + quote(option));
      }
    }
    List<Duration> parsed = new ArrayList<>();
    String[] items = leases.split(",");
    for (int i = 0; i < items.length; i++) {
      parsed.add(duration("leases[" + i + "]", items[i]));
    }
    return new LeaseTuningArguments(
        parsed, pauses(pauses), new LeaseTuningSettings(beats, rate, safety, quick));
  }

  /**
   * Parses {@code p50=20ms,p99=800ms,max=2s}: each key exactly once, in any order.
   *
   * @throws IllegalArgumentException naming the key or item that is missing, repeated, unknown or
   *     malformed, with its value
   */
  static LeaseModel pauses(String text) {
    if (text == null || text.isBlank()) {
      throw new IllegalArgumentException(
          "pauses must be like p50=20ms,p99=800ms,max=2s, but was " + quote(text));
    }
    Map<String, Duration> values = new HashMap<>();
    for (String item : text.split(",")) {
      int eq = item.indexOf('=');
      if (eq < 0) {
        throw new IllegalArgumentException(
            "pauses must be key=duration pairs such as p99=800ms, but had item " + quote(item));
      }
      String key = item.substring(0, eq).trim().toLowerCase(Locale.ROOT);
      if (!KEYS.contains(key)) {
        throw new IllegalArgumentException(
            "pauses may name only p50, p99 and max, but named " + quote(key));
      }
      if (values.put(key, duration(key, item.substring(eq + 1))) != null) {
        throw new IllegalArgumentException(
            "pauses must name " + key + " once, but named it again in " + quote(text));
      }
    }
    for (String key : KEYS) {
      if (!values.containsKey(key)) {
        throw new IllegalArgumentException(
            "pauses must name p50, p99 and max, but " + key + " is missing in " + quote(text));
      }
    }
    return new LeaseModel(values.get("p50"), values.get("p99"), values.get("max"));
  }

  /**
   * Parses a duration such as {@code 800ms}, {@code 1.5s}, {@code 2m}, {@code 1h} or {@code 500us}.
   *
   * @param parameter the parameter's name, for the message
   * @throws IllegalArgumentException naming the parameter and the text
   */
  static Duration duration(String parameter, String text) {
    Matcher m = DURATION.matcher(text == null ? "" : text.trim().toLowerCase(Locale.ROOT));
    if (!m.matches()) {
      throw new IllegalArgumentException(
          parameter + " must be a duration such as 800ms, 1.5s or 2m, but was " + quote(text));
    }
    long unitNanos =
        switch (m.group(2)) {
          case "us" -> 1_000L;
          case "ms" -> 1_000_000L;
          case "s" -> 1_000_000_000L;
          case "m" -> 60_000_000_000L;
          default -> 3_600_000_000_000L;
        };
    BigDecimal nanos = new BigDecimal(m.group(1)).multiply(BigDecimal.valueOf(unitNanos));
    if (nanos.compareTo(BigDecimal.valueOf(Duration.ofHours(24).toNanos())) > 0) {
      throw new IllegalArgumentException(
          parameter + " must be at most 24 h, but was " + quote(text));
    }
    return Duration.ofNanos(nanos.setScale(0, RoundingMode.HALF_UP).longValueExact());
  }

  private static String value(String[] args, int i, String option) {
    if (i >= args.length || args[i].startsWith("--")) {
      throw new IllegalArgumentException(option + " needs a value, but had none");
    }
    return args[i];
  }

  private static double number(String option, String value) {
    try {
      return Double.parseDouble(value);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(option + " must be a number, but was " + quote(value), e);
    }
  }

  /** Reads {@code 0.1%} as 0.001 and a bare number as a fraction. */
  private static double rate(String option, String value) {
    return value.endsWith("%")
        ? number(option, value.substring(0, value.length() - 1)) / 100
        : number(option, value);
  }
}
