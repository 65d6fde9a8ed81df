package dev.fencing.schedule.internal;

import dev.fencing.schedule.Missed;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What one round does for one schedule: the slots to enqueue, how many due slots it skips, and the
 * new mark (the newest due slot). Due slots lie in ({@code mark}, {@code now}]; a due slot is on
 * time while {@code now - slot <= grace}, else missed (see {@link Missed}).
 *
 * @param enqueue the slots to enqueue, ascending
 * @param skipped how many due slots are not enqueued
 * @param mark the new mark
 */
public record DuePlan(List<Instant> enqueue, long skipped, Instant mark) {

  /** The most on-time slots one round enqueues; older ones count as missed. */
  static final int MAX_ON_TIME = 1_000;

  public DuePlan {
    enqueue = List.copyOf(enqueue);
  }

  /** Returns the plan, or empty when no slot is due. */
  public static Optional<DuePlan> of(
      Slots slots, Instant mark, Instant now, Missed missed, Duration grace) {
    Instant lower = now.minus(grace);
    // the on-time slots: after the mark, at or after now - grace, at or before now
    Instant after = mark.isBefore(lower) ? lower.minusNanos(1) : mark;
    long onTimeCount = slots.count(after, now);
    List<Instant> onTime = newest(slots, after, slots.latest(now), MAX_ON_TIME);
    // the missed slots: after the mark, before now - grace
    Instant lastMissed = lower.minusNanos(1);
    Optional<Instant> newestMissed =
        mark.isBefore(lastMissed)
            ? slots.latest(lastMissed).filter(s -> s.isAfter(mark))
            : Optional.empty();
    if (onTime.isEmpty() && newestMissed.isEmpty()) {
      return Optional.empty();
    }
    long missedCount = newestMissed.isEmpty() ? 0 : slots.count(mark, newestMissed.get());
    List<Instant> runMissed = runMissed(slots, mark, newestMissed, missed);
    List<Instant> enqueue = new ArrayList<>(runMissed);
    if (missed instanceof Missed.RunOnce && !onTime.isEmpty()) {
      enqueue.clear();
    }
    enqueue.addAll(onTime);
    long due = missedCount + onTimeCount;
    Instant newMark = onTime.isEmpty() ? newestMissed.get() : onTime.getLast();
    return Optional.of(new DuePlan(enqueue, due - enqueue.size(), newMark));
  }

  /** The missed slots the policy runs, ascending, before the on-time ones are known. */
  private static List<Instant> runMissed(
      Slots slots, Instant mark, Optional<Instant> newest, Missed missed) {
    if (newest.isEmpty()) {
      return List.of();
    }
    return switch (missed) {
      case Missed.Skip skip -> List.of();
      case Missed.RunOnce once -> List.of(newest.get());
      case Missed.RunAll all -> newest(slots, mark, newest, all.cap());
    };
  }

  /** Up to {@code limit} slots after {@code after}, walking back from {@code from}, ascending. */
  private static List<Instant> newest(
      Slots slots, Instant after, Optional<Instant> from, int limit) {
    List<Instant> run = new ArrayList<>();
    for (Optional<Instant> s = from;
        s.isPresent() && s.get().isAfter(after) && run.size() < limit;
        s = slots.latest(s.get().minusNanos(1))) {
      run.addFirst(s.get());
    }
    return run;
  }
}
