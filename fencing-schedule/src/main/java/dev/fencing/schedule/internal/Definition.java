package dev.fencing.schedule.internal;

import dev.fencing.schedule.Missed;
import dev.fencing.schedule.Schedule;
import dev.fencing.schedule.Trigger;
import java.time.Duration;
import java.time.ZoneId;

/**
 * A schedule's definition as the text stored with it: one {@code key=value} per line, the payload
 * last (it may span lines). Equal definitions give equal text, so schedulers compare it as text.
 */
public final class Definition {

  private static final String HEADER = "fencing-schedule 1";

  private Definition() {}

  /** Returns the definition of {@code schedule}: all but its name and revision. */
  public static String of(Schedule schedule) {
    return HEADER
        + "\nqueue="
        + schedule.queue()
        + "\ntrigger="
        + trigger(schedule.trigger())
        + "\nzone="
        + schedule.zone().getId()
        + "\nmissed="
        + missed(schedule.missed())
        + "\ngrace="
        + schedule.grace()
        + "\npayload="
        + schedule.payload();
  }

  /**
   * Returns a trigger as the text of a definition: {@code cron <expression>} or {@code every <ISO
   * duration>}.
   */
  public static String trigger(Trigger trigger) {
    return switch (trigger) {
      case Trigger.Cron cron -> "cron " + cron.expression();
      case Trigger.Every every -> "every " + every.interval();
    };
  }

  /**
   * Returns a policy as the text of a definition: {@code run-once}, {@code run-all <cap>}, {@code
   * skip}.
   */
  public static String missed(Missed missed) {
    return switch (missed) {
      case Missed.RunOnce once -> "run-once";
      case Missed.RunAll all -> "run-all " + all.cap();
      case Missed.Skip skip -> "skip";
    };
  }

  /**
   * Returns the schedule that {@code definition} describes, under {@code name} and {@code
   * revision}.
   *
   * @throws IllegalArgumentException if it is not a definition this version writes
   */
  public static Schedule parse(String name, long revision, String definition) {
    String[] lines = definition.split("\n", 7);
    if (lines.length != 7 || !lines[0].equals(HEADER)) {
      throw new IllegalArgumentException(
          "definition of schedule " + name + " is not of this version: '" + definition + "'");
    }
    String trigger = value(lines[2], "trigger", name);
    String missed = value(lines[4], "missed", name);
    return new Schedule(
        name,
        revision,
        value(lines[1], "queue", name),
        value(lines[6], "payload", name),
        trigger.startsWith("cron ")
            ? Trigger.cron(trigger.substring(5))
            : Trigger.every(Duration.parse(trigger.substring("every ".length()))),
        ZoneId.of(value(lines[3], "zone", name)),
        missed.equals("skip")
            ? Missed.skip()
            : missed.equals("run-once")
                ? Missed.runOnce()
                : Missed.runAll(Integer.parseInt(missed.substring("run-all ".length()))),
        Duration.parse(value(lines[5], "grace", name)));
  }

  private static String value(String line, String key, String name) {
    if (!line.startsWith(key + "=")) {
      throw new IllegalArgumentException(
          "definition of schedule " + name + " has no " + key + " where expected: '" + line + "'");
    }
    return line.substring(key.length() + 1);
  }
}
