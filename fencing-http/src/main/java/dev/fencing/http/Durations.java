package dev.fencing.http;

import java.time.Duration;
import org.jspecify.annotations.Nullable;

/** Range checks for the builders' durations. */
final class Durations {

  private Durations() {}

  static Duration between(String parameter, @Nullable Duration value, Duration min, Duration max) {
    if (value == null || value.compareTo(min) < 0 || value.compareTo(max) > 0) {
      throw new IllegalArgumentException(
          parameter + " must be between " + min + " and " + max + ", but was " + value);
    }
    return value;
  }
}
