package dev.fencing.spring.internal;

import dev.fencing.micrometer.FencingMetrics;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.schedule.FencedScheduler;
import dev.fencing.schedule.Schedule;
import dev.fencing.schedule.SchedulerStats;
import dev.fencing.spring.FencingProperties;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.context.SmartLifecycle;

/**
 * Runs every {@link Schedule} bean of the context in one {@link FencedScheduler}, named by {@code
 * fencing.owner}, from the context's start to its close. Its phase is just above the workers': it
 * starts after them (and after the schema was installed, when the {@link PostgresFencing} bean was
 * made) and stops before them, so the data source closes only after the scheduler's thread ended.
 */
final class Schedules implements SmartLifecycle, HealthDetails {

  // Spring's logging, not System.Logger: Spring Boot disconnects java.util.logging (where
  // System.Logger goes) from its own logging when the context starts to close, before the
  // lifecycle stops, so a line logged during stop() through it was never seen
  private static final Log LOG = LogFactory.getLog(Schedules.class);

  /** Starts after the workers, stops before them. */
  static final int PHASE = Workers.PHASE + 1;

  private final FencedScheduler scheduler;
  private final LastRound rounds;
  private final String schema;
  private boolean started;
  private volatile boolean running;

  /**
   * Builds the scheduler of {@code schedules}, not started.
   *
   * @throws IllegalArgumentException if the schedules are not distinct by name
   */
  Schedules(
      PostgresFencing fencing,
      FencingProperties properties,
      Meters meters,
      List<Schedule> schedules) {
    this.rounds = new LastRound(fencing.schedules());
    this.schema = fencing.schema();
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
      metrics.scheduler(scheduler);
    }
  }

  /** Returns the scheduler, started with the context. */
  FencedScheduler scheduler() {
    return scheduler;
  }

  /**
   * Starts the scheduler's thread.
   *
   * @throws IllegalStateException if the context is started again after a stop: a stopped scheduler
   *     does not restart
   */
  @Override
  public synchronized void start() {
    if (running) {
      return;
    }
    if (started) {
      throw new IllegalStateException(
          "scheduler " + scheduler.name() + " was stopped and does not restart");
    }
    started = true;
    scheduler.start();
    running = true;
    LOG.info(
        "fencing: scheduler "
            + scheduler.name()
            + " runs schedules "
            + scheduler.schedules().stream().map(Schedule::name).toList()
            + " in schema "
            + schema);
  }

  /**
   * Stops the scheduler after the round it is in, waiting for its thread; the marks stay in the
   * database.
   */
  @Override
  public synchronized void stop() {
    running = false;
    scheduler.close();
  }

  @Override
  public boolean isRunning() {
    return running;
  }

  @Override
  public int getPhase() {
    return PHASE;
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
    if (!running) {
      return Map.of();
    }
    SchedulerStats s = scheduler.stats();
    Map<String, Object> details = new LinkedHashMap<>();
    details.put("name", scheduler.name());
    details.put("schedules", scheduler.schedules().stream().map(Schedule::name).toList());
    details.put("enqueued", s.enqueued());
    details.put("skipped", s.skipped());
    details.put("taken", s.taken());
    details.put("superseded", s.superseded());
    details.put("conflicts", s.conflicts());
    details.put("failures", s.failures());
    Instant last = rounds.last();
    if (last != null) {
      details.put("lastRound", last.toString());
    }
    return details;
  }
}
