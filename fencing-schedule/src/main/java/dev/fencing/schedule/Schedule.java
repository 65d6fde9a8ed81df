package dev.fencing.schedule;

import dev.fencing.internal.Validate;
import java.time.Duration;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Objects;

/**
 * A recurring job: on each slot of {@code trigger}, one job on {@code queue}, whatever the number
 * of schedulers that run it. The job's payload is {@code {"schedule": name, "slot": slot (ISO-8601,
 * UTC), "payload": payload}}; its idempotency key is {@code schedule:<name>@<slot>}.
 *
 * <p>The definition is everything but the name and the revision. To change it while schedulers run,
 * give the new definition a higher revision: the stored definition with the highest revision wins,
 * schedulers that run an older one stop enqueueing for it, and the mark carries over, so no slot
 * runs twice across the change (docs/SCHEDULES.md). A scheduler that runs the same revision with a
 * different definition enqueues nothing for it and counts a conflict.
 *
 * @param name letters, digits, {@code _ . -}, 1 to 100 characters; names the schedule in the store
 * @param revision at least 1
 * @param queue a plain identifier ({@code [a-z_][a-z0-9_]{0,62}})
 * @param payload one JSON value, put into each job's payload; the store judges it at the first
 *     advance (PostgreSQL's jsonb): one it refuses fails that schedule's every round, counted in
 *     {@link SchedulerStats#failures()} and logged with the store's reason
 * @param trigger when the slots are
 * @param zone the time zone of a cron trigger (a fixed interval ignores it)
 * @param missed what happens to missed slots
 * @param grace how late a slot may be enqueued and still be on time, between 0 and 366 days
 * @since 0.1
 */
public record Schedule(
    String name,
    long revision,
    String queue,
    String payload,
    Trigger trigger,
    ZoneId zone,
    Missed missed,
    Duration grace) {

  /** The default of {@link #grace()}. */
  public static final Duration DEFAULT_GRACE = Duration.ofMinutes(1);

  /**
   * @throws IllegalArgumentException naming the first bad parameter and its value
   * @throws NullPointerException if a parameter is null
   */
  public Schedule {
    Validate.scheduleName(name);
    Validate.between("revision", revision, 1, Long.MAX_VALUE);
    Validate.identifier("queue", queue);
    Validate.json("payload", payload);
    Objects.requireNonNull(trigger, "trigger");
    Objects.requireNonNull(zone, "zone");
    Objects.requireNonNull(missed, "missed");
    Objects.requireNonNull(grace, "grace");
    if (grace.isNegative() || grace.compareTo(Trigger.Every.MAX) > 0) {
      throw new IllegalArgumentException("grace must be between 0 and 366 days, but was " + grace);
    }
  }

  /** Starts a schedule named {@code name}; see {@link Builder} for the defaults. */
  public static Builder builder(String name) {
    return new Builder(name);
  }

  /**
   * Builds a {@link Schedule}. Defaults: revision 1, payload {@code {}}, zone UTC, {@link
   * Missed#runOnce()}, grace {@link #DEFAULT_GRACE}; queue and trigger have none.
   */
  public static final class Builder {
    private final String name;
    private long revision = 1;
    private String queue = "";
    private String payload = "{}";
    private Trigger trigger = new Trigger.Every(Duration.ofHours(1));
    private boolean triggerSet;
    private ZoneId zone = ZoneOffset.UTC;
    private Missed missed = new Missed.RunOnce();
    private Duration grace = DEFAULT_GRACE;

    private Builder(String name) {
      this.name = name;
    }

    /** The revision; see {@link Schedule}. */
    public Builder revision(long revision) {
      this.revision = revision;
      return this;
    }

    /** The queue the jobs go to. */
    public Builder queue(String queue) {
      this.queue = queue;
      return this;
    }

    /** The JSON put into each job's payload. */
    public Builder payload(String payload) {
      this.payload = payload;
      return this;
    }

    /** A cron trigger; see {@link Trigger.Cron}. */
    public Builder cron(String expression) {
      return trigger(Trigger.cron(expression));
    }

    /** A fixed interval; see {@link Trigger.Every}. */
    public Builder every(Duration interval) {
      return trigger(Trigger.every(interval));
    }

    /** The trigger. */
    public Builder trigger(Trigger trigger) {
      this.trigger = Objects.requireNonNull(trigger, "trigger");
      this.triggerSet = true;
      return this;
    }

    /** The time zone of a cron trigger. */
    public Builder zone(ZoneId zone) {
      this.zone = zone;
      return this;
    }

    /** The missed-slot policy. */
    public Builder missed(Missed missed) {
      this.missed = missed;
      return this;
    }

    /** How late a slot may be and still be on time. */
    public Builder grace(Duration grace) {
      this.grace = grace;
      return this;
    }

    /**
     * Returns the schedule.
     *
     * @throws IllegalArgumentException naming the first bad setting, or saying that the trigger was
     *     not given
     */
    public Schedule build() {
      if (!triggerSet) {
        throw new IllegalArgumentException(
            "trigger must be given (cron or every), but schedule " + name + " has none");
      }
      return new Schedule(name, revision, queue, payload, trigger, zone, missed, grace);
    }
  }
}
