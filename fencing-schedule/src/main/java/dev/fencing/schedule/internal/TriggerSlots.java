package dev.fencing.schedule.internal;

import dev.fencing.schedule.Schedule;
import dev.fencing.schedule.Trigger;

/** The slots of a schedule's trigger. */
public final class TriggerSlots {

  private TriggerSlots() {}

  /** Returns the slots of {@code schedule}'s trigger, in its zone. */
  public static Slots of(Schedule schedule) {
    return switch (schedule.trigger()) {
      case Trigger.Cron cron -> CronSlots.of(cron.expression(), schedule.zone());
      case Trigger.Every every -> new IntervalSlots(every.interval());
    };
  }
}
