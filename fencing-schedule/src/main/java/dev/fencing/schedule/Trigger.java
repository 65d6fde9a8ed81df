package dev.fencing.schedule;

import dev.fencing.schedule.internal.CronSlots;
import java.time.Duration;
import java.util.Objects;

/**
 * When a schedule's slots are: the times of a cron expression in the schedule's time zone, or every
 * fixed interval.
 *
 * @since 0.1
 */
public sealed interface Trigger {

  /** The slots of a cron expression; see {@link Cron}. */
  static Trigger cron(String expression) {
    return new Cron(expression);
  }

  /** A slot every {@code interval}; see {@link Every}. */
  static Trigger every(Duration interval) {
    return new Every(interval);
  }

  /**
   * The times a cron expression matches, in the schedule's time zone, to the second. Five fields
   * are Unix cron ({@code minute hour day-of-month month day-of-week}, e.g. {@code "0 3 * * *"} for
   * 03:00 every day); six fields put seconds first, as Spring does (<code>"*&#47;10 * * * * *"
   * </code>, every 10 s). Over a daylight saving change a wall-clock time that does not exist that
   * day has no slot, and one that happens twice has one slot, at its first occurrence
   * (docs/SCHEDULES.md).
   *
   * @param expression five or six fields
   */
  record Cron(String expression) implements Trigger {
    /**
     * @throws IllegalArgumentException naming the expression and what is wrong with it
     */
    public Cron {
      CronSlots.check(expression);
    }
  }

  /**
   * A slot every {@code interval} of elapsed time, at whole multiples of it since 1970-01-01T00:00Z
   * (so every 1 h is on the hour in UTC); the time zone plays no part and daylight saving changes
   * nothing.
   *
   * @param interval between 100 ms and 366 days, in whole milliseconds
   */
  record Every(Duration interval) implements Trigger {
    /** The shortest interval. */
    public static final Duration MIN = Duration.ofMillis(100);

    /** The longest interval. */
    public static final Duration MAX = Duration.ofDays(366);

    /**
     * @throws IllegalArgumentException naming {@code interval} and its value
     */
    public Every {
      Objects.requireNonNull(interval, "interval");
      if (interval.compareTo(MIN) < 0
          || interval.compareTo(MAX) > 0
          || interval.toNanosPart() % 1_000_000 != 0) {
        throw new IllegalArgumentException(
            "interval must be between 100 ms and 366 days in whole milliseconds, but was "
                + interval);
      }
    }
  }
}
