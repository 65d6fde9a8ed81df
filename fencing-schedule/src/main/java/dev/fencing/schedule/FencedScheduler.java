package dev.fencing.schedule;

import dev.fencing.StoreUnavailableException;
import dev.fencing.schedule.internal.Counters;
import dev.fencing.schedule.internal.Definition;
import dev.fencing.schedule.internal.Round;
import dev.fencing.schedule.internal.Slots;
import dev.fencing.schedule.internal.TriggerSlots;
import dev.fencing.spi.ScheduleSnapshot;
import dev.fencing.spi.ScheduleState;
import dev.fencing.spi.ScheduleStore;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Enqueues one job per slot of each of its {@link Schedule}s, on a thread of its own: any number of
 * schedulers may run the same schedules (one per application instance, say), and each slot's job is
 * enqueued once, whichever of them gets there first, even when one is frozen and thawed later. Each
 * job is an ordinary job of the queue, claimed and committed under its own epochs by whatever
 * runtime serves that queue.
 *
 * <pre>{@code
 * FencedScheduler scheduler =
 *     FencedScheduler.builder(fencing.schedules())
 *         .schedule(Schedule.builder("nightly-report").cron("0 3 * * *")
 *             .zone(ZoneId.of("Europe/Berlin")).queue("reports").build())
 *         .build();
 * scheduler.start();
 * }</pre>
 *
 * <p>How once per slot holds: the store keeps per schedule a high-water mark, the latest slot dealt
 * with. A round reads the marks and the store's clock (slots are judged due on the store's clock,
 * never this machine's), computes the due slots without holding any lock, and then moves each mark
 * by a compare-and-set from the value it read, in the statement that enqueues the slots' jobs. Of
 * two schedulers that read the same mark one wins; the other, and a frozen scheduler that wakes up
 * with an old mark, find the mark moved and write nothing. The jobs' idempotency keys ({@code
 * schedule:<name>@<slot>}) are a second guard, for as long as retention keeps the jobs; the mark
 * holds after that too. See docs/SCHEDULES.md.
 *
 * <p>A round that fails (the store unreachable) is counted and logged, and the next round, at most
 * {@link Builder#pollInterval} later, tries again; no slot is lost by it, only late (and then dealt
 * with by the {@link Missed} policy once later than the schedule's grace).
 *
 * @since 0.1
 */
public final class FencedScheduler implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(FencedScheduler.class);

  /** Woken this long after a slot, so that the store's clock has surely passed it. */
  private static final Duration LAG = Duration.ofMillis(5);

  private final String name;
  private final List<Schedule> schedules;
  private final Duration pollInterval;
  private final Counters counters = new Counters();
  private final Round round;
  private final CountDownLatch stop = new CountDownLatch(1);
  private @Nullable Thread thread;

  private FencedScheduler(
      ScheduleStore store, String name, List<Schedule> schedules, Duration pollInterval) {
    this.name = name;
    this.schedules = schedules;
    this.pollInterval = pollInterval;
    this.round = new Round(store, schedules, counters, name);
  }

  /**
   * Starts configuring a scheduler on {@code store} (a backend's, e.g. {@code
   * PostgresFencing.schedules()}).
   *
   * @throws NullPointerException if {@code store} is null
   */
  public static Builder builder(ScheduleStore store) {
    return new Builder(Objects.requireNonNull(store, "store"));
  }

  /**
   * Starts the scheduler's thread, which runs a round at once and then at each slot of its
   * schedules, and at least every {@link Builder#pollInterval}.
   *
   * @throws IllegalStateException if it was started or closed before
   */
  public synchronized void start() {
    if (thread != null || stop.getCount() == 0) {
      throw new IllegalStateException("scheduler " + name + " was started or closed before");
    }
    Thread t = new Thread(this::loop, "fencing-scheduler-" + name);
    t.setDaemon(true);
    thread = t;
    t.start();
  }

  /**
   * Runs one round now on the calling thread, as the scheduler's thread does (for tests, or for
   * those who drive rounds from a timer of their own instead of {@link #start()}).
   *
   * <p>A schedule whose part of the round fails (a payload the store refuses as JSON, the store
   * unreachable at its advance) is counted in {@link SchedulerStats#failures()} and logged, and the
   * other schedules go on.
   *
   * @return how long until the next slot of any of its schedules, on the store's clock
   * @throws StoreUnavailableException if the marks could not be read (counted as a failure)
   */
  public Duration runRound() {
    try {
      return round.run();
    } catch (RuntimeException e) {
      counters.failed();
      throw e;
    }
  }

  /** Returns what it did so far. */
  public SchedulerStats stats() {
    long[] c = counters.read();
    return new SchedulerStats(c[0], c[1], c[2], c[3], c[4], c[5]);
  }

  /** Returns its schedules. */
  public List<Schedule> schedules() {
    return schedules;
  }

  /** Returns its name, as its thread and its log lines give it. */
  public String name() {
    return name;
  }

  /**
   * Stops the thread after the round it is in, waiting up to 30 s for it. The marks stay in the
   * store: another scheduler, or this one's successor, goes on from them.
   */
  @Override
  public void close() {
    stop.countDown();
    Thread t;
    synchronized (this) {
      t = thread;
    }
    if (t != null && t != Thread.currentThread()) {
      try {
        t.join(TimeUnit.SECONDS.toMillis(30));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private void loop() {
    while (stop.getCount() > 0) {
      Duration wait = pollInterval;
      try {
        Duration next = round.run().plus(LAG);
        if (next.compareTo(wait) < 0) {
          wait = next.isNegative() ? Duration.ZERO : next;
        }
      } catch (RuntimeException e) {
        counters.failed();
        LOG.warn("scheduler {}: round failed", name, e);
      }
      try {
        if (stop.await(wait.toNanos(), TimeUnit.NANOSECONDS)) {
          return;
        }
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  @Override
  public String toString() {
    return "FencedScheduler[" + name + ", " + schedules.size() + " schedules]";
  }

  /**
   * Returns every schedule the store holds, each with its next {@code count} slots after its mark
   * or the store's clock, whichever is later (what {@code fencing schedules} prints).
   *
   * @param count between 0 and 100
   * @throws IllegalArgumentException if {@code count} is out of range
   * @throws StoreUnavailableException if the store could not be reached
   */
  public static List<ScheduleOverview> overview(ScheduleStore store, int count) {
    if (count < 0 || count > 100) {
      throw new IllegalArgumentException("count must be between 0 and 100, but was " + count);
    }
    ScheduleSnapshot snapshot = store.list();
    List<ScheduleOverview> overview = new ArrayList<>();
    for (ScheduleState stored : snapshot.schedules()) {
      Schedule schedule;
      try {
        schedule = Definition.parse(stored.name(), stored.revision(), stored.definition());
      } catch (RuntimeException e) {
        overview.add(new ScheduleOverview(stored, null, List.of()));
        continue;
      }
      Slots slots = TriggerSlots.of(schedule);
      List<Instant> next = new ArrayList<>();
      Instant after = stored.mark().isAfter(snapshot.now()) ? stored.mark() : snapshot.now();
      for (Optional<Instant> s = slots.next(after); s.isPresent() && next.size() < count; ) {
        next.add(s.get());
        s = slots.next(s.get());
      }
      overview.add(new ScheduleOverview(stored, schedule, next));
    }
    return overview;
  }

  /** Configures a scheduler; {@link #build()} checks every setting. */
  public static final class Builder {
    private final ScheduleStore store;
    private final List<Schedule> schedules = new ArrayList<>();
    private String name = "scheduler-" + ProcessHandle.current().pid();
    private Duration pollInterval = Duration.ofSeconds(1);

    private Builder(ScheduleStore store) {
      this.store = store;
    }

    /** Adds a schedule; names must be distinct. */
    public Builder schedule(Schedule schedule) {
      schedules.add(Objects.requireNonNull(schedule, "schedule"));
      return this;
    }

    /** How it is named in its thread and log lines; default {@code scheduler-<pid>}. */
    public Builder name(String name) {
      this.name = Objects.requireNonNull(name, "name");
      return this;
    }

    /**
     * The longest pause between rounds, 10 ms to 1 h; default 1 s. Rounds also run at each slot;
     * the poll notices a definition stored by another scheduler and retries after a failure.
     */
    public Builder pollInterval(Duration pollInterval) {
      this.pollInterval = Objects.requireNonNull(pollInterval, "pollInterval");
      return this;
    }

    /**
     * Returns the scheduler, not started.
     *
     * @throws IllegalArgumentException naming the first bad setting: no schedule, a name given
     *     twice, a poll interval out of range
     */
    public FencedScheduler build() {
      if (schedules.isEmpty()) {
        throw new IllegalArgumentException("schedules must not be empty, but none was given");
      }
      Set<String> names = new HashSet<>();
      for (Schedule s : schedules) {
        if (!names.add(s.name())) {
          throw new IllegalArgumentException(
              "schedules must have distinct names, but " + s.name() + " was given twice");
        }
      }
      if (pollInterval.compareTo(Duration.ofMillis(10)) < 0
          || pollInterval.compareTo(Duration.ofHours(1)) > 0) {
        throw new IllegalArgumentException(
            "pollInterval must be between 10 ms and 1 h, but was " + pollInterval);
      }
      return new FencedScheduler(store, name, List.copyOf(schedules), pollInterval);
    }
  }
}
