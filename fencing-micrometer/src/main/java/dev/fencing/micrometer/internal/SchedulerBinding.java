package dev.fencing.micrometer.internal;

import dev.fencing.schedule.FencedScheduler;
import dev.fencing.schedule.SchedulerStats;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Tags;
import java.util.function.ToLongFunction;

/** A scheduler's counts as function counters, read from {@link FencedScheduler#stats()}. */
public final class SchedulerBinding {

  private SchedulerBinding() {}

  /** Registers the counters of {@code scheduler}, tagged {@code scheduler=name}. */
  public static void bind(Instruments meters, String name, FencedScheduler scheduler) {
    Tags tags = Tags.of("scheduler", name);
    String slots = "Due slots a scheduler's advances dealt with: enqueued, or skipped by policy";
    count(
        meters,
        scheduler,
        "fencing.schedule.slots",
        slots,
        tags.and("outcome", "enqueued"),
        SchedulerStats::enqueued);
    count(
        meters,
        scheduler,
        "fencing.schedule.slots",
        slots,
        tags.and("outcome", "skipped"),
        SchedulerStats::skipped);
    String rounds = "Rounds in which a scheduler wrote nothing for a schedule, by why";
    count(
        meters,
        scheduler,
        "fencing.schedule.idle",
        rounds,
        tags.and("reason", "taken"),
        SchedulerStats::taken);
    count(
        meters,
        scheduler,
        "fencing.schedule.idle",
        rounds,
        tags.and("reason", "superseded"),
        SchedulerStats::superseded);
    count(
        meters,
        scheduler,
        "fencing.schedule.idle",
        rounds,
        tags.and("reason", "conflict"),
        SchedulerStats::conflicts);
    count(
        meters,
        scheduler,
        "fencing.schedule.idle",
        rounds,
        tags.and("reason", "failed"),
        SchedulerStats::failures);
  }

  private static void count(
      Instruments meters,
      FencedScheduler scheduler,
      String name,
      String description,
      Tags tags,
      ToLongFunction<SchedulerStats> value) {
    FunctionCounter.builder(name, scheduler, s -> value.applyAsLong(s.stats()))
        .description(description)
        .tags(meters.common)
        .tags(tags)
        .register(meters.registry);
  }
}
