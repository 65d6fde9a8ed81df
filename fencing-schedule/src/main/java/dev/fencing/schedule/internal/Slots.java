package dev.fencing.schedule.internal;

import dev.fencing.schedule.Schedule;
import dev.fencing.schedule.Trigger;
import java.time.Instant;
import java.util.Optional;

/** The slots of a trigger: instants, ascending. */
public interface Slots {

  /** Returns the first slot strictly after {@code after}, if any. */
  Optional<Instant> next(Instant after);

  /** Returns the last slot at or before {@code atOrBefore}, if any. */
  Optional<Instant> latest(Instant atOrBefore);

  /** Returns how many slots lie in ({@code after}, {@code atOrBefore}]. */
  default long count(Instant after, Instant atOrBefore) {
    long n = 0;
    for (Optional<Instant> s = next(after);
        s.isPresent() && !s.get().isAfter(atOrBefore);
        s = next(s.get())) {
      n++;
    }
    return n;
  }

  /** Returns the slots of {@code schedule}'s trigger, in its zone. */
  static Slots of(Schedule schedule) {
    return switch (schedule.trigger()) {
      case Trigger.Cron cron -> CronSlots.of(cron.expression(), schedule.zone());
      case Trigger.Every every -> new IntervalSlots(every.interval());
    };
  }
}
