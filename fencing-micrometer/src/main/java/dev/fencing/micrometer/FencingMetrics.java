package dev.fencing.micrometer;

import dev.fencing.FencedQueue;
import dev.fencing.FencedReceiver;
import dev.fencing.internal.Validate;
import dev.fencing.micrometer.internal.DepthGauges;
import dev.fencing.micrometer.internal.Instruments;
import dev.fencing.micrometer.internal.MeteredQueue;
import dev.fencing.micrometer.internal.MeteredReceiver;
import dev.fencing.micrometer.internal.RuntimeBinding;
import dev.fencing.micrometer.internal.SchedulerBinding;
import dev.fencing.micrometer.internal.WorkersBinding;
import dev.fencing.runtime.FencedWorkers;
import dev.fencing.schedule.FencedScheduler;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * Micrometer meters for fencing: metered decorators of a {@link FencedQueue} and a {@link
 * FencedReceiver} that change nothing of what they wrap, gauges of the depth of the queues named,
 * and the meters of a worker runtime. docs/METRICS.md lists every meter.
 *
 * <pre>{@code
 * FencingMetrics metrics = FencingMetrics.builder(registry)
 *     .tags("service", "billing").watchDepth("emails").build();
 * PostgresFencing fencing = PostgresFencing.builder(dataSource).schema("jobs").build();
 * FencedQueue queue = metrics.queue(fencing.queue());
 * FencedReceiver receiver = metrics.receiver(fencing.receiver("ledger"));
 * }</pre>
 *
 * <p>Meters are named {@code fencing.*} and tagged with low-cardinality values only: a queue's
 * name, an outcome, a reason, a stage, an exception's class; never a job id, an owner or an epoch.
 * Latencies and the depth refresh are timed on the registry's clock. Immutable and thread-safe.
 *
 * @since 0.1
 */
public final class FencingMetrics {

  /** Tag keys the meters set themselves, which common tags may not use. */
  private static final Set<String> OWN_KEYS =
      Set.of(
          "queue",
          "state",
          "outcome",
          "reason",
          "stage",
          "error",
          "runtime",
          "kind",
          "source",
          "action",
          "scheduler");

  private final Instruments meters;
  private final List<String> watched;
  private final Duration refreshInterval;

  private FencingMetrics(Instruments meters, List<String> watched, Duration refreshInterval) {
    this.meters = meters;
    this.watched = watched;
    this.refreshInterval = refreshInterval;
  }

  /**
   * Starts configuring the meters, registered in {@code registry}.
   *
   * @throws NullPointerException if {@code registry} is null
   */
  public static Builder builder(MeterRegistry registry) {
    return new Builder(Objects.requireNonNull(registry, "registry"));
  }

  /**
   * Returns {@code queue} metered: claims, commits, renewals, failures, releases and enqueues are
   * timed and counted, then passed unchanged to {@code queue}; what it returns or throws is
   * returned or thrown as it was. Registers the depth gauges of the watched queues, read through
   * {@code queue} (when several queues are wrapped, through the first).
   *
   * @throws NullPointerException if {@code queue} is null
   */
  public FencedQueue queue(FencedQueue queue) {
    Objects.requireNonNull(queue, "queue");
    for (String name : watched) {
      DepthGauges.register(queue, name, meters, refreshInterval);
    }
    return new MeteredQueue(queue, meters);
  }

  /**
   * Returns {@code receiver} metered: deliveries are timed and counted by outcome, refusals by
   * reason at {@code stage=deliver}, then returned as the receiver returned them.
   *
   * @throws NullPointerException if {@code receiver} is null
   */
  public FencedReceiver receiver(FencedReceiver receiver) {
    return new MeteredReceiver(Objects.requireNonNull(receiver, "receiver"), meters);
  }

  /**
   * Returns the meters of one worker runtime, tagged {@code runtime=name}; see {@link
   * RuntimeMetrics}.
   *
   * @param name not blank, at most 200 characters: one per process, never a job's or epoch's name
   * @throws IllegalArgumentException if {@code name} is blank or too long
   */
  public RuntimeMetrics runtime(String name) {
    return new RuntimeBinding(meters, tagValue("name", name));
  }

  /**
   * Registers the counts of {@code scheduler} (fencing-schedule), tagged {@code scheduler=<its
   * name>}: {@code scheduler(scheduler.name(), scheduler)}. Name the scheduler by its role; a name
   * per process (its default, {@code scheduler-<pid>}, or an owner name) makes a time series per
   * restart: give the tag with {@link #scheduler(String, FencedScheduler)} then. Needs
   * fencing-schedule on the class path (an optional dependency of this module).
   *
   * @throws NullPointerException if {@code scheduler} is null
   */
  public void scheduler(FencedScheduler scheduler) {
    Objects.requireNonNull(scheduler, "scheduler");
    scheduler(scheduler.name(), scheduler);
  }

  /**
   * Registers the counts of {@code scheduler}, tagged {@code scheduler=name} and read from {@link
   * FencedScheduler#stats()} when the registry publishes: {@code fencing.schedule.slots} by {@code
   * outcome} ({@code enqueued}, {@code skipped}) and {@code fencing.schedule.idle} by {@code
   * reason} ({@code taken}, {@code superseded}, {@code conflict}, {@code failed}).
   *
   * @param name the tag's value, a role (not blank, at most 200 characters), never a process's name
   * @throws IllegalArgumentException if {@code name} is blank or too long
   * @throws NullPointerException if {@code scheduler} is null
   */
  public void scheduler(String name, FencedScheduler scheduler) {
    SchedulerBinding.bind(
        meters, tagValue("name", name), Objects.requireNonNull(scheduler, "scheduler"));
  }

  /**
   * Registers what the maintenance and the relay of {@code workers} did, read from {@link
   * FencedWorkers#maintenanceStats()} and {@link FencedWorkers#relayStats()} when the registry
   * publishes: {@code fencing.maintenance.jobs} by {@code action} ({@code removed}, {@code
   * archived}), {@code fencing.maintenance.failures}, {@code fencing.relay.messages} by {@code
   * outcome} ({@code accepted}, {@code refused}) and {@code fencing.relay.failures}. Each queue's
   * runtime has meters of its own: {@link #runtime(String)}.
   *
   * @throws NullPointerException if {@code workers} is null
   */
  public void workers(FencedWorkers workers) {
    WorkersBinding.bind(meters, Objects.requireNonNull(workers, "workers"));
  }

  private static String tagValue(String parameter, String value) {
    if (value == null || value.isBlank() || value.length() > 200) {
      throw new IllegalArgumentException(
          parameter
              + " must be non-blank and at most 200 characters, but was "
              + (value == null ? "null" : "'" + value + "'"));
    }
    return value;
  }

  /** Configures {@link FencingMetrics}; {@link #build()} checks every setting. */
  public static final class Builder {
    private final MeterRegistry registry;
    private final List<Tag> tags = new ArrayList<>();
    private final Set<String> watched = new LinkedHashSet<>();
    private Duration refreshInterval = Duration.ofSeconds(15);

    private Builder(MeterRegistry registry) {
      this.registry = registry;
    }

    /**
     * Adds tags to every meter, as key and value pairs: {@code tags("service", "billing")}.
     *
     * @throws IllegalArgumentException if the count is odd, or a key is one the meters set
     */
    public Builder tags(String... keyValues) {
      Objects.requireNonNull(keyValues, "keyValues");
      if (keyValues.length % 2 != 0) {
        throw new IllegalArgumentException(
            "keyValues must be key and value pairs, but had " + keyValues.length + " strings");
      }
      return tags(Tags.of(keyValues));
    }

    /**
     * Adds tags to every meter.
     *
     * @throws IllegalArgumentException if a key is one the meters set themselves
     */
    public Builder tags(Iterable<Tag> tags) {
      for (Tag tag : Objects.requireNonNull(tags, "tags")) {
        if (OWN_KEYS.contains(tag.getKey())) {
          throw new IllegalArgumentException(
              "tags must not use the key '"
                  + tag.getKey()
                  + "', which the meters set themselves, but was "
                  + tag);
        }
        this.tags.add(tag);
      }
      return this;
    }

    /**
     * Watches the depth of {@code queues}: gauges {@code fencing.queue.depth} by queue and state.
     *
     * @param queues plain identifiers ({@code [a-z_][a-z0-9_]{0,62}})
     * @throws IllegalArgumentException naming the first queue that is not one
     */
    public Builder watchDepth(String... queues) {
      Objects.requireNonNull(queues, "queues");
      for (int i = 0; i < queues.length; i++) {
        watched.add(Validate.identifier("queues[" + i + "]", queues[i]));
      }
      return this;
    }

    /**
     * How old a depth reading may be before a scrape reads again; default 15 s. Each watched queue
     * is read at most once per interval, however often the registry is scraped.
     *
     * @param refreshInterval between 1 s and 1 h
     * @throws IllegalArgumentException if it is out of range
     */
    public Builder refreshInterval(Duration refreshInterval) {
      Objects.requireNonNull(refreshInterval, "refreshInterval");
      this.refreshInterval =
          Validate.between(
              "refreshInterval", refreshInterval, Duration.ofSeconds(1), Duration.ofHours(1));
      return this;
    }

    /** Returns the meters so configured; later changes to this builder do not affect them. */
    public FencingMetrics build() {
      return new FencingMetrics(
          new Instruments(registry, Tags.of(tags)), List.copyOf(watched), refreshInterval);
    }
  }
}
