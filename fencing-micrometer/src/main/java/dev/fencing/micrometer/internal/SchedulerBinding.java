package dev.fencing.micrometer.internal;

import dev.fencing.schedule.FencedScheduler;
import dev.fencing.schedule.SchedulerStats;
import io.micrometer.core.instrument.Tags;
import java.util.function.ToLongFunction;

/** A scheduler's counts as function counters, read from {@link FencedScheduler#stats()}. */
public final class SchedulerBinding {

  private static final CounterFamily SLOTS =
      new CounterFamily(
          "fencing.schedule.slots",
          "Due slots a scheduler's advances dealt with: enqueued, or skipped by policy",
          "outcome");
  private static final CounterFamily IDLE =
      new CounterFamily(
          "fencing.schedule.idle",
          "Rounds in which a scheduler wrote nothing for a schedule, by why",
          "reason");

  private SchedulerBinding() {}

  /** Registers the counters of {@code scheduler}, tagged {@code scheduler=name}. */
  public static void bind(Instruments meters, String name, FencedScheduler scheduler) {
    Tags tags = Tags.of("scheduler", name);
    count(meters, tags, scheduler, SLOTS, "enqueued", SchedulerStats::enqueued);
    count(meters, tags, scheduler, SLOTS, "skipped", SchedulerStats::skipped);
    count(meters, tags, scheduler, IDLE, "taken", SchedulerStats::taken);
    count(meters, tags, scheduler, IDLE, "superseded", SchedulerStats::superseded);
    count(meters, tags, scheduler, IDLE, "conflict", SchedulerStats::conflicts);
    count(meters, tags, scheduler, IDLE, "failed", SchedulerStats::failures);
  }

  private static void count(
      Instruments meters,
      Tags tags,
      FencedScheduler scheduler,
      CounterFamily family,
      String value,
      ToLongFunction<SchedulerStats> count) {
    family.register(meters, tags, value, scheduler, s -> count.applyAsLong(s.stats()));
  }
}
