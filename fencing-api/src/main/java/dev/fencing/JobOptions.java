package dev.fencing;

import dev.fencing.internal.Validate;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * How a job waits and ranks: when it may first be claimed (at an instant, or after a delay) and its
 * priority. Immutable; each {@code with...} method returns a copy. Start from {@link #DEFAULT}, or
 * from {@link #at}, {@link #after} or {@link #ofPriority}:
 *
 * <pre>{@code
 * queue.enqueue("reminders", payload, JobOptions.after(Duration.ofHours(24)));
 * queue.enqueue("exports", payload, JobOptions.ofPriority(5).withDelay(Duration.ofMinutes(1)));
 * }</pre>
 *
 * <p><b>Time.</b> Both an instant and a delay are judged on the store's clock, never the
 * producer's: a delay is added to the store's time when the job is written. Setting one clears the
 * other. A time in the past makes the job claimable at once.
 *
 * <p><b>Priority</b> lies between {@value #MIN_PRIORITY} and {@value #MAX_PRIORITY}, default 0;
 * higher is claimed first. A queue hands out its claimable jobs by priority, then by the time they
 * became ready (run time, or when an expired lease ran out), then by age (id). The order is strict:
 * a steady stream of higher-priority jobs delays lower ones. A job whose lease ran out is taken
 * over at priority 0, and a failed job's retry keeps its priority.
 *
 * @since 0.1
 */
public final class JobOptions {

  /** The lowest priority: claimed after every other claimable job of its queue. */
  public static final int MIN_PRIORITY = -10;

  /** The highest priority: claimed before every other claimable job of its queue. */
  public static final int MAX_PRIORITY = 10;

  /** The longest delay, and the furthest a run time may lie ahead on the store's clock. */
  public static final Duration MAX_DELAY = Duration.ofDays(3650);

  /** The earliest instant a run time may name. */
  public static final Instant MIN_RUN_AT = Instant.parse("1970-01-01T00:00:00Z");

  /** The latest instant a run time may name. */
  public static final Instant MAX_RUN_AT = Instant.parse("9999-12-31T23:59:59Z");

  /** Claimable at once, priority 0: what a job enqueued without options gets. */
  public static final JobOptions DEFAULT = new JobOptions(null, null, 0, null);

  private final @Nullable Instant runAt;
  private final @Nullable Duration delay;
  private final int priority;
  private final @Nullable String group;

  private JobOptions(
      @Nullable Instant runAt, @Nullable Duration delay, int priority, @Nullable String group) {
    this.runAt = runAt;
    this.delay = delay;
    this.priority = priority;
    this.group = group;
  }

  /**
   * Claimable from {@code runAt} on, on the store's clock.
   *
   * @throws IllegalArgumentException if {@code runAt} is null or outside {@link #MIN_RUN_AT} ..
   *     {@link #MAX_RUN_AT}
   */
  public static JobOptions at(Instant runAt) {
    return DEFAULT.withRunAt(runAt);
  }

  /**
   * Claimable {@code delay} after the store writes the job.
   *
   * @throws IllegalArgumentException if {@code delay} is null, negative or above {@link #MAX_DELAY}
   */
  public static JobOptions after(Duration delay) {
    return DEFAULT.withDelay(delay);
  }

  /**
   * Claimable at once, at {@code priority}.
   *
   * @throws IllegalArgumentException if {@code priority} is outside {@value #MIN_PRIORITY} ..
   *     {@value #MAX_PRIORITY}
   */
  public static JobOptions ofPriority(int priority) {
    return DEFAULT.withPriority(priority);
  }

  /**
   * A copy claimable from {@code runAt} on (and no delay).
   *
   * @throws IllegalArgumentException as {@link #at}
   */
  public JobOptions withRunAt(Instant runAt) {
    if (runAt == null || runAt.isBefore(MIN_RUN_AT) || runAt.isAfter(MAX_RUN_AT)) {
      throw new IllegalArgumentException(
          "runAt must be between " + MIN_RUN_AT + " and " + MAX_RUN_AT + ", but was " + runAt);
    }
    return new JobOptions(runAt, null, priority, group);
  }

  /**
   * A copy claimable {@code delay} after the job is written (and no run time).
   *
   * @throws IllegalArgumentException as {@link #after}
   */
  public JobOptions withDelay(Duration delay) {
    return new JobOptions(
        null, Validate.between("delay", delay, Duration.ZERO, MAX_DELAY), priority, group);
  }

  /**
   * A copy at {@code priority}.
   *
   * @throws IllegalArgumentException as {@link #ofPriority}
   */
  public JobOptions withPriority(int priority) {
    return new JobOptions(
        runAt, delay, Validate.between("priority", priority, MIN_PRIORITY, MAX_PRIORITY), group);
  }

  /**
   * Options for a job of group {@code group}: see {@link #withGroup(String)}.
   *
   * @throws IllegalArgumentException as {@link #withGroup(String)}
   */
  public static JobOptions inGroup(String group) {
    return DEFAULT.withGroup(group);
  }

  /**
   * A copy in which the job belongs to {@code group} ("customer-42"), which its queue's {@link
   * QueueLimits group limits} count (at most N under way per group, FIFO per group, a rate per
   * group). A job with a group waits, like one with a priority, where only a V2 library claims it.
   * Not an idempotency key: a group has many jobs.
   *
   * @throws IllegalArgumentException if {@code group} is null, blank, longer than 200 characters or
   *     not well-formed text
   */
  public JobOptions withGroup(String group) {
    return new JobOptions(runAt, delay, priority, Validate.group(group));
  }

  /** A copy without a group. */
  public JobOptions withoutGroup() {
    return new JobOptions(runAt, delay, priority, null);
  }

  /** The job's group, if it has one. */
  public Optional<String> group() {
    return Optional.ofNullable(group);
  }

  /** The instant the job becomes claimable, if one was set. */
  public Optional<Instant> runAt() {
    return Optional.ofNullable(runAt);
  }

  /** The delay after which the job becomes claimable, if one was set. */
  public Optional<Duration> delay() {
    return Optional.ofNullable(delay);
  }

  /** The priority: higher is claimed first. */
  public int priority() {
    return priority;
  }

  /** Whether these are the options of a job enqueued without any: claimable at once, priority 0. */
  public boolean isDefault() {
    return runAt == null && delay == null && priority == 0 && group == null;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof JobOptions other
        && Objects.equals(runAt, other.runAt)
        && Objects.equals(delay, other.delay)
        && priority == other.priority
        && Objects.equals(group, other.group);
  }

  @Override
  public int hashCode() {
    return Objects.hash(runAt, delay, priority, group);
  }

  @Override
  public String toString() {
    StringBuilder text = new StringBuilder("JobOptions[");
    if (runAt != null) {
      text.append("runAt=").append(runAt).append(", ");
    }
    if (delay != null) {
      text.append("delay=").append(delay).append(", ");
    }
    text.append("priority=").append(priority);
    if (group != null) {
      text.append(", group=").append(Validate.quote(group));
    }
    return text.append(']').toString();
  }
}
