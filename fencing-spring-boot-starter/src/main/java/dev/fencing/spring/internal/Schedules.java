package dev.fencing.spring.internal;

import dev.fencing.micrometer.FencingMetrics;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.runtime.FencedWorkers;
import dev.fencing.schedule.FencedScheduler;
import dev.fencing.schedule.Missed;
import dev.fencing.schedule.Schedule;
import dev.fencing.schedule.SchedulerStats;
import dev.fencing.spring.FencingProperties;
import dev.fencing.spring.ScheduleProperties;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One {@link FencedScheduler} of every {@link Schedule} bean and every {@code fencing.schedules.*}
 * schedule, named by {@code fencing.owner} (its thread and log lines), handed to the workers, which
 * start it after their queues and stop it before them.
 */
final class Schedules implements Scheduling, HealthDetails {

  /**
   * The {@code scheduler} tag of its meters: one scheduler per application, and never the owner
   * name, which would make a time series per process.
   */
  static final String METER_TAG = "default";

  private final FencedScheduler scheduler;
  private final LastRound rounds;

  /**
   * Builds the scheduler of {@code beans} (by bean name) and of {@code properties}' schedules, not
   * started.
   *
   * @throws IllegalArgumentException if a schedule is both a bean and a property, naming both, if a
   *     property's schedule is bad, naming it, or if two beans share a name
   */
  Schedules(
      PostgresFencing fencing,
      FencingProperties properties,
      Meters meters,
      Map<String, Schedule> beans) {
    this.rounds = new LastRound(fencing.schedules());
    List<Schedule> schedules = new ArrayList<>(beans.values());
    properties
        .schedules()
        .forEach(
            (name, p) -> {
              beans.forEach(
                  (bean, s) -> {
                    if (s.name().equals(name)) {
                      throw new IllegalArgumentException(
                          "schedule '"
                              + name
                              + "' must be defined once, but is both the Schedule bean '"
                              + bean
                              + "' and fencing.schedules."
                              + name);
                    }
                  });
              schedules.add(schedule(name, p));
            });
    FencedScheduler.Builder builder =
        FencedScheduler.builder(rounds)
            .name(properties.ownerOrDefault())
            .pollInterval(properties.scheduler().pollInterval());
    schedules.forEach(builder::schedule);
    try {
      this.scheduler = builder.build();
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("the Schedule beans: " + e.getMessage(), e);
    }
    FencingMetrics metrics = meters.metrics();
    if (metrics != null) {
      metrics.scheduler(METER_TAG, scheduler);
    }
  }

  /** The schedule {@code fencing.schedules.<name>} defines. */
  private static Schedule schedule(String name, ScheduleProperties p) {
    try {
      Schedule.Builder b =
          Schedule.builder(name)
              .queue(p.queue())
              .payload(p.payload())
              .zone(p.zoneOrUtc())
              .grace(p.grace())
              .revision(p.revision())
              .missed(
                  switch (p.missed()) {
                    case "run-once" -> Missed.runOnce();
                    case "skip" -> Missed.skip();
                    default -> Missed.runAll(p.runAllCap());
                  });
      if (p.cron() != null) {
        b.cron(p.cron());
      } else if (p.every() != null) {
        b.every(p.every());
      }
      return b.build();
    } catch (IllegalArgumentException e) {
      // no cause: Spring reports the root cause's message, which would not name the property
      throw new IllegalArgumentException("fencing.schedules." + name + ": " + e.getMessage());
    }
  }

  /** Returns the scheduler, started and closed by the workers. */
  FencedScheduler scheduler() {
    return scheduler;
  }

  @Override
  public void addTo(FencedWorkers.Builder workers) {
    workers.scheduler(scheduler);
  }

  @Override
  public List<String> names() {
    return scheduler.schedules().stream().map(Schedule::name).toList();
  }

  @Override
  public String key() {
    return "scheduler";
  }

  /**
   * The scheduler's name, schedules and counts, and the database's time at its latest round ({@code
   * lastRound}); failures are reported, never judged: a failed round is retried and a late slot is
   * dealt with by its schedule's missed-slot policy.
   */
  @Override
  public Map<String, Object> details() {
    SchedulerStats s = scheduler.stats();
    Map<String, Object> details = new LinkedHashMap<>();
    details.put("name", scheduler.name());
    details.put("schedules", names());
    details.putAll(HealthDetails.components(s));
    Instant last = rounds.last();
    if (last != null) {
      details.put("lastRound", last.toString());
    }
    return details;
  }
}
