package dev.fencing.spring;

import dev.fencing.internal.Validate;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * One schedule of {@code fencing.schedules.<name>.*}, a recurring job defined by properties (a
 * dev.fencing.schedule.Schedule, built with fencing-schedule on the class path): on each slot, one
 * job on its queue, whatever the number of instances. {@link FencingProperties} checks it when
 * bound, naming the property.
 *
 * @param queue the queue the jobs go to, a plain identifier; required
 * @param cron a cron expression: five fields (minute first) or six (seconds first); this or every
 * @param every a fixed interval, 100 ms to 366 days, in whole milliseconds; this or cron
 * @param zone the time zone of a cron expression, such as Europe/Berlin; default UTC
 * @param payload the JSON put into each job's payload; default an empty object
 * @param missed what happens to slots no instance enqueued in time: run-once (the newest of them
 *     runs once), skip, or run-all:N (each runs, up to the N newest, N from 1 to 1,000); default
 *     run-once
 * @param grace how late a slot may be enqueued and still be on time, up to 366 days; default 1 min
 * @param revision the definition's revision, at least 1: raise it to change the definition while
 *     instances run; default 1
 * @since 0.1
 */
public record ScheduleProperties(
    @Nullable String queue,
    @Nullable String cron,
    @Nullable Duration every,
    @Nullable String zone,
    @DefaultValue("{}") String payload,
    @DefaultValue("run-once") String missed,
    @DefaultValue("1m") Duration grace,
    @DefaultValue("1") long revision) {

  private static final Pattern MISSED = Pattern.compile("run-once|skip|run-all:([0-9]{1,4})");

  /**
   * Returns the cap of a run-all:N policy, or zero for run-once and skip.
   *
   * @throws IllegalArgumentException if {@link #missed()} is none of the three
   */
  public int runAllCap() {
    Matcher m = MISSED.matcher(missed);
    if (!m.matches() || m.group(1) != null && !between(Integer.parseInt(m.group(1)), 1, 1_000)) {
      throw new IllegalArgumentException(
          "missed must be run-once, skip or run-all:N with N from 1 to 1000, but was "
              + Validate.quote(missed));
    }
    return m.group(1) == null ? 0 : Integer.parseInt(m.group(1));
  }

  /** Returns the time zone: {@link #zone()}, or UTC. */
  public ZoneId zoneOrUtc() {
    return zone == null ? ZoneOffset.UTC : ZoneId.of(zone);
  }

  private static boolean between(int value, int min, int max) {
    return value >= min && value <= max;
  }

  /**
   * Checks every setting but the cron expression (fencing-schedule's to check).
   *
   * @throws IllegalArgumentException naming the first setting out of range, with {@code prefix}
   */
  void check(String prefix) {
    Validate.identifier(prefix + "queue", queue);
    if ((cron == null) == (every == null)) {
      throw new IllegalArgumentException(
          prefix
              + "cron or "
              + prefix
              + "every must be set, one of them, but "
              + (cron == null ? "neither was" : "both were"));
    }
    if (every != null) {
      Validate.between(prefix + "every", every, Duration.ofMillis(100), Duration.ofDays(366));
    }
    try {
      zoneOrUtc();
    } catch (DateTimeException e) {
      // no cause: the message is the whole story, and Spring reports the root cause's
      throw new IllegalArgumentException(
          prefix
              + "zone must be a time zone such as Europe/Berlin, but was "
              + Validate.quote(zone));
    }
    Validate.json(prefix + "payload", payload);
    try {
      runAllCap();
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(prefix + e.getMessage());
    }
    Validate.between(prefix + "grace", grace, Duration.ZERO, Duration.ofDays(366));
    Validate.between(prefix + "revision", revision, 1, Long.MAX_VALUE);
  }
}
