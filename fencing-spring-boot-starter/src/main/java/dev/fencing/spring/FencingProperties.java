package dev.fencing.spring;

import dev.fencing.QueueLimits;
import dev.fencing.internal.Validate;
import dev.fencing.postgres.PostgresFencing;
import java.time.Duration;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The {@code fencing.*} properties, checked when they are bound: a value out of range stops the
 * context with a message that names the property and the value.
 *
 * <pre>
 * fencing.schema=jobs
 * fencing.queue-defaults.lease=1m
 * fencing.queues.emails.concurrency=8
 * fencing.queues.emails.lease=30s
 * </pre>
 *
 * <p>The parameters' descriptions are plain text (no tags): the configuration processor copies them
 * verbatim into the metadata IDEs show.
 *
 * @param schema the schema of every table, a plain identifier; default fencing
 * @param install whether the schema is migrated to this version (the migration scripts it lacks
 *     applied, nothing done on a schema at this version) when the context starts; default true.
 *     With false, a schema at a version this library may not run on fails each call with
 *     SchemaVersionException until it is migrated
 * @param engine how jobs are stored: update-in-place or append-only; default the engine the schema
 *     records (append-only when it records none); a schema that records the other is refused at
 *     start
 * @param owner the owner name this process claims as; default the host name and the process id
 * @param maxAttempts claims a job gets before a failure is terminal, 1 to 1,000; default 5
 * @param drainTimeout how long the context's shutdown lets running handlers finish, up to 24 h;
 *     default 30 s
 * @param virtualThreads whether handlers run on virtual threads; default
 *     spring.threads.virtual.enabled if set, else the runtime's default (true on Java 24 and later)
 * @param queueDefaults the settings of every queue, for each setting a queue does not set itself
 *     under fencing.queues.(name); those left unset here take the runtime's defaults
 * @param queues the settings of each queue by name, the keys of fencing.queue-defaults:
 *     fencing.queues.(name).concurrency, .lease, .heartbeat, .batch-size, .prefetch, .retry-delay
 *     and .min-lease-left; each unset takes fencing.queue-defaults, then the runtime's default.
 *     Besides, the queue's own limits, .limits.max-running, .rate, .group-max-running, .group-rate,
 *     .fifo, .priority-aging and .apply (not defaults). Spring drops underscores from map keys:
 *     write a queue named order_events as fencing.queues[order_events].concurrency
 * @param maintenance retention of finished jobs and storage upkeep, run by the workers with or
 *     without queues
 * @param health the health indicator's settings
 * @param scheduler the settings of the scheduler that runs the application's schedules (with
 *     fencing-schedule on the class path)
 * @param receiver the name of a FencedReceiver bean that every queue delivers its results to, with
 *     the job's lease, before each commit; default none (so is a blank name): results are committed
 *     only
 * @param schedules recurring jobs by schedule name, beside the Schedule beans (with
 *     fencing-schedule on the class path): fencing.schedules.(name).queue, .cron or .every, .zone,
 *     .payload, .missed (run-once, skip or run-all:N), .grace and .revision. A name may not be both
 *     a property and a bean
 * @param metrics the meters' settings, with a MeterRegistry in the context
 * @param datasource whether the application's HikariCP pool connects through a
 *     PrimaryWaitingDataSource (fencing-postgres), which waits for a primary during a failover
 * @since 0.1
 */
@ConfigurationProperties("fencing")
public record FencingProperties(
    @DefaultValue(PostgresFencing.DEFAULT_SCHEMA) String schema,
    @DefaultValue("true") boolean install,
    PostgresFencing.@Nullable Engine engine,
    @Nullable String owner,
    @Nullable Integer maxAttempts,
    @DefaultValue("30s") Duration drainTimeout,
    @Nullable Boolean virtualThreads,
    @DefaultValue Queue queueDefaults,
    @Nullable Map<String, Queue> queues,
    @DefaultValue Maintenance maintenance,
    @DefaultValue Health health,
    @DefaultValue Scheduler scheduler,
    @Nullable String receiver,
    @Nullable Map<String, ScheduleProperties> schedules,
    @DefaultValue Metrics metrics,
    @DefaultValue Datasource datasource) {

  /**
   * Checks every property.
   *
   * @throws IllegalArgumentException naming the first property out of range and its value
   */
  public FencingProperties {
    Validate.identifier("fencing.schema", schema);
    if (owner != null) {
      try {
        Validate.owner(owner);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("fencing." + e.getMessage(), e);
      }
    }
    if (maxAttempts != null) {
      Validate.between("fencing.max-attempts", maxAttempts, 1, 1_000);
    }
    Validate.delay("fencing.drain-timeout", drainTimeout);
    if (receiver != null && receiver.isBlank()) {
      receiver = null;
    }
    queueDefaults.check("fencing.queue-defaults.");
    if (queueDefaults.limits() != null) {
      throw new IllegalArgumentException(
          "fencing.queue-defaults.limits is not a setting: limits are per queue, set"
              + " fencing.queues.(name).limits.max-running");
    }
    Map<String, Queue> merged = new TreeMap<>();
    if (queues != null) {
      for (Map.Entry<String, Queue> e : queues.entrySet()) {
        Validate.identifier("fencing.queues key", e.getKey());
        Queue q = e.getValue().orElse(queueDefaults);
        q.check("fencing.queues." + e.getKey() + ".");
        merged.put(e.getKey(), q);
      }
    }
    queues = Collections.unmodifiableMap(merged);
    Map<String, ScheduleProperties> named = new TreeMap<>();
    if (schedules != null) {
      for (Map.Entry<String, ScheduleProperties> e : schedules.entrySet()) {
        try {
          Validate.scheduleName(e.getKey());
        } catch (IllegalArgumentException bad) {
          throw new IllegalArgumentException("fencing.schedules: " + bad.getMessage());
        }
        e.getValue().check("fencing.schedules." + e.getKey() + ".");
        named.put(e.getKey(), e.getValue());
      }
    }
    schedules = Collections.unmodifiableMap(named);
  }

  /**
   * Returns the settings of {@code queue}, each unset one taken from {@link #queueDefaults()}; its
   * settings left unset take the runtime's defaults.
   */
  public Queue queue(String queue) {
    Queue q = queues().get(queue);
    return q != null ? q : queueDefaults;
  }

  /** Returns the owner name: {@link #owner()}, or the host name and process id. */
  public String ownerOrDefault() {
    return owner != null ? owner : Owners.hostAndPid();
  }

  /**
   * One queue's runtime settings; each left unset takes the default of the runtime
   * (dev.fencing.runtime.FencedWorkers).
   *
   * @param concurrency handler threads, 1 to 10,000; default 4
   * @param lease the lease of each claim and renewal, 1 ms to 24 h; default 30 s
   * @param heartbeat how often leases in flight are renewed, more than zero and less than the
   *     lease; default a third of the lease
   * @param batchSize most jobs per claim and results per commit, 1 to 10,000; default 100
   * @param prefetch claimed jobs that may wait for a free handler, 0 to 10,000; default as many as
   *     the concurrency
   * @param retryDelay how long a failed job waits before it is claimable again, up to 24 h; default
   *     10 s
   * @param minLeaseLeft the least lease a job must have left to be handed to a handler, less than
   *     the lease; default a third of the lease
   * @param limits the limits the store keeps for the queue, for every process that claims from it:
   *     fencing.queues.(name).limits.max-running, .rate, .group-max-running, .group-rate, .fifo and
   *     .apply. Per queue only: not a setting of fencing.queue-defaults
   */
  public record Queue(
      @Nullable Integer concurrency,
      @Nullable Duration lease,
      @Nullable Duration heartbeat,
      @Nullable Integer batchSize,
      @Nullable Integer prefetch,
      @Nullable Duration retryDelay,
      @Nullable Duration minLeaseLeft,
      @Nullable Limits limits) {

    /**
     * Returns these settings, each unset one taken from {@code defaults}, but the limits, which are
     * the queue's own.
     */
    Queue orElse(Queue defaults) {
      return new Queue(
          concurrency != null ? concurrency : defaults.concurrency,
          lease != null ? lease : defaults.lease,
          heartbeat != null ? heartbeat : defaults.heartbeat,
          batchSize != null ? batchSize : defaults.batchSize,
          prefetch != null ? prefetch : defaults.prefetch,
          retryDelay != null ? retryDelay : defaults.retryDelay,
          minLeaseLeft != null ? minLeaseLeft : defaults.minLeaseLeft,
          limits);
    }

    /** Returns the lease: {@link #lease()} or the runtime's default, 30 s. */
    public Duration leaseOrDefault() {
      return lease != null ? lease : Duration.ofSeconds(30);
    }

    private void check(String prefix) {
      if (concurrency != null) {
        Validate.between(prefix + "concurrency", concurrency, 1, 10_000);
      }
      if (lease != null) {
        Validate.between(prefix + "lease", lease, Duration.ofMillis(1), Validate.MAX_LEASE);
      }
      Duration leaseLength = leaseOrDefault();
      if (heartbeat != null
          && (heartbeat.compareTo(Duration.ZERO) <= 0 || heartbeat.compareTo(leaseLength) >= 0)) {
        throw new IllegalArgumentException(
            prefix
                + "heartbeat must be more than zero and less than the lease ("
                + leaseLength
                + "), but was "
                + heartbeat);
      }
      if (batchSize != null) {
        Validate.between(prefix + "batch-size", batchSize, 1, Validate.MAX_BATCH);
      }
      if (prefetch != null) {
        Validate.between(prefix + "prefetch", prefetch, 0, Validate.MAX_BATCH);
      }
      if (retryDelay != null) {
        Validate.delay(prefix + "retry-delay", retryDelay);
      }
      if (minLeaseLeft != null
          && (minLeaseLeft.isNegative() || minLeaseLeft.compareTo(leaseLength) >= 0)) {
        throw new IllegalArgumentException(
            prefix
                + "min-lease-left must be at least zero and less than the lease ("
                + leaseLength
                + "), but was "
                + minLeaseLeft);
      }
      if (limits != null) {
        limits.check(prefix + "limits.");
      }
    }
  }

  /**
   * A queue's limits as properties. The store keeps a queue's limits, shared by every process that
   * claims from it; these properties change them only with apply.
   *
   * @param maxRunning at most this many jobs of the queue running under valid leases, 1 to
   *     1,000,000; unset for no running limit
   * @param rate at most this many jobs of the queue handed out per window, written starts/window
   *     ("100/1s", "10/1m", "5/PT0.5S"); unset for none
   * @param groupMaxRunning at most this many jobs of each group (JobOptions.withGroup) under way, 1
   *     to 1,000,000; unset for none
   * @param groupRate at most this many jobs of each group started per window, as rate
   * @param fifo whether each group's jobs start in the order they were enqueued (default false)
   * @param priorityAging a job of priority p ranks as if it had become ready p times this earlier
   *     (1 ms to 1 day); unset for the strict order
   * @param apply whether the application sets the queue's limits to these at start (logged at
   *     INFO), replacing what the store kept: with apply, a limit left unset is removed; default
   *     false: the limits the store keeps rule (set by another process, the fencing limits command
   *     or FencedQueue.setLimits), and these are not written
   */
  public record Limits(
      @Nullable Integer maxRunning,
      @Nullable String rate,
      @Nullable Integer groupMaxRunning,
      @Nullable String groupRate,
      @DefaultValue("false") boolean fifo,
      @Nullable Duration priorityAging,
      @DefaultValue("false") boolean apply) {

    /** The limits these properties name. */
    public QueueLimits queueLimits() {
      QueueLimits limits = QueueLimits.NONE;
      if (maxRunning != null) {
        limits = limits.withMaxRunning(maxRunning);
      }
      if (rate != null) {
        QueueLimits.Rate r = QueueLimits.Rate.parse(rate);
        limits = limits.withRate(r.starts(), r.per());
      }
      if (groupMaxRunning != null) {
        limits = limits.withMaxRunningPerGroup(groupMaxRunning);
      }
      if (groupRate != null) {
        QueueLimits.Rate r = QueueLimits.Rate.parse(groupRate);
        limits = limits.withRatePerGroup(r.starts(), r.per());
      }
      if (priorityAging != null) {
        limits = limits.withPriorityAging(priorityAging);
      }
      return fifo ? limits.withFifoPerGroup() : limits;
    }

    /** Checks each property, naming it with {@code prefix} in the message. */
    void check(String prefix) {
      if (maxRunning != null) {
        Validate.between(prefix + "max-running", maxRunning, 1, QueueLimits.MAX_RUNNING);
      }
      if (groupMaxRunning != null) {
        Validate.between(prefix + "group-max-running", groupMaxRunning, 1, QueueLimits.MAX_RUNNING);
      }
      if (priorityAging != null) {
        try {
          QueueLimits.NONE.withPriorityAging(priorityAging);
        } catch (IllegalArgumentException e) {
          throw new IllegalArgumentException(prefix + "priority-aging: " + e.getMessage());
        }
      }
      checkRate(prefix + "rate", rate);
      checkRate(prefix + "group-rate", groupRate);
    }

    private static void checkRate(String name, @Nullable String rate) {
      if (rate == null) {
        return;
      }
      try {
        QueueLimits.Rate.parse(rate);
      } catch (IllegalArgumentException e) {
        // no cause: a binding failure is reported by its root cause, which must name the property
        throw new IllegalArgumentException(name + ": " + e.getMessage());
      }
    }
  }

  /**
   * Retention of finished jobs and storage upkeep (dev.fencing.postgres.PostgresMaintenance), run
   * by the workers, with or without queues.
   *
   * @param enabled whether rounds run; default true
   * @param keepFinished how long a finished job (and its idempotency key) is kept, 1 min to 3650
   *     days; default 7 days
   * @param archive whether removed jobs are first copied to fencing_job_archive; default false
   * @param batchSize jobs removed per round, 1 to 10,000; default 1,000
   * @param vacuumEvery the least time between two VACUUMs, up to 24 h, zero for none; default 10 s
   * @param every the pause between rounds when no work is left, 1 s to 24 h; default 1 min
   */
  public record Maintenance(
      @DefaultValue("true") boolean enabled,
      @DefaultValue("7d") Duration keepFinished,
      @DefaultValue("false") boolean archive,
      @DefaultValue("1000") int batchSize,
      @DefaultValue("10s") Duration vacuumEvery,
      @DefaultValue("1m") Duration every) {

    /**
     * Checks every setting.
     *
     * @throws IllegalArgumentException naming the first property out of range and its value
     */
    public Maintenance {
      Validate.keepFinished("fencing.maintenance.keep-finished", keepFinished);
      Validate.between("fencing.maintenance.batch-size", batchSize, 1, Validate.MAX_BATCH);
      Validate.delay("fencing.maintenance.vacuum-every", vacuumEvery);
      Validate.between(
          "fencing.maintenance.every", every, Duration.ofSeconds(1), Validate.MAX_LEASE);
    }
  }

  /**
   * The health indicator's settings.
   *
   * @param timeout how long one check may wait for the database before it reports DOWN, 1 ms to 1
   *     h; default 5 s
   */
  public record Health(@DefaultValue("5s") Duration timeout) {

    /**
     * Checks the timeout.
     *
     * @throws IllegalArgumentException if it is out of range, naming the property and value
     */
    public Health {
      Validate.between(
          "fencing.health.timeout", timeout, Duration.ofMillis(1), Duration.ofHours(1));
    }
  }

  /**
   * The settings of the scheduler that runs the application's Schedule beans.
   *
   * @param pollInterval the longest pause between two rounds, 10 ms to 1 h; default 1 s. Rounds
   *     also run at each slot; the poll notices a definition another instance stored and retries
   *     after a failed round
   */
  public record Scheduler(@DefaultValue("1s") Duration pollInterval) {

    /**
     * Checks the poll interval.
     *
     * @throws IllegalArgumentException if it is out of range, naming the property and value
     */
    public Scheduler {
      Validate.between(
          "fencing.scheduler.poll-interval",
          pollInterval,
          Duration.ofMillis(10),
          Duration.ofHours(1));
    }
  }

  /**
   * The meters' settings.
   *
   * @param tags tags added to every fencing meter, by key (fencing.metrics.tags.service=billing);
   *     keys the meters set themselves (queue, outcome, runtime, scheduler and the like) stop the
   *     context
   */
  public record Metrics(@Nullable Map<String, String> tags) {

    /** Copies the tags, none when unset. */
    public Metrics {
      tags = tags == null ? Map.of() : Collections.unmodifiableMap(new TreeMap<>(tags));
    }
  }

  /**
   * Whether the application's HikariCP pools connect through a PrimaryWaitingDataSource
   * (dev.fencing.postgres, docs/HA.md): while no host takes connections as the URL asks (no primary
   * during a failover, a node restarting), the pool's connection attempt tries again every retry
   * interval for up to the primary wait, so the pool connects within a retry interval of a new
   * primary instead of after HikariCP's own backoff (up to 5 s). Each pool bean of type
   * HikariDataSource that is configured by a JDBC URL and not started yet is concerned; a pool
   * given a DataSource of its own, or configured by a data source class name, is left alone.
   * Nothing else of the pool changes.
   *
   * @param waitForPrimary true or false to put it under every such pool or under none; default
   *     (unset) under each pool whose JDBC URL (with its data source properties) names several
   *     hosts or a targetServerType other than any: a failover setup. A single-host URL (one
   *     server, or a proxy or DNS name that follows the primary) keeps HikariCP's own behaviour, in
   *     which a database that is down fails the first connection at once rather than after the
   *     primary wait; set true to wait there too
   * @param primaryWait how long one connection attempt of the pool waits for a primary, up to 24 h,
   *     zero for one try; default 30 s (a Patroni failover at its default ttl). The pool's
   *     connection timeout still bounds each caller's wait; a pool that checks a connection at its
   *     start waits up to this long there while no primary answers
   * @param retryInterval the pause between two tries while waiting, 1 ms to 1 min; default 250 ms:
   *     at most this long after a new primary takes connections, the pool has one
   */
  public record Datasource(
      @Nullable Boolean waitForPrimary,
      @DefaultValue("30s") Duration primaryWait,
      @DefaultValue("250ms") Duration retryInterval) {

    /**
     * Checks the wait and the interval.
     *
     * @throws IllegalArgumentException naming the first property out of range and its value
     */
    public Datasource {
      Validate.delay("fencing.datasource.primary-wait", primaryWait);
      Validate.between(
          "fencing.datasource.retry-interval",
          retryInterval,
          Duration.ofMillis(1),
          Duration.ofMinutes(1));
    }
  }
}
