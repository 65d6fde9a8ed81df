package dev.fencing.schedule.internal;

import dev.fencing.Enqueued;
import dev.fencing.KeyedJob;
import dev.fencing.schedule.Schedule;
import dev.fencing.spi.ScheduleSnapshot;
import dev.fencing.spi.ScheduleState;
import dev.fencing.spi.ScheduleStore;
import dev.fencing.spi.SlotAdvance;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One round of a scheduler over its schedules: read the marks and the store's clock, register
 * definitions the store lacks or holds at a lower revision, and for each schedule this scheduler
 * may run, advance its mark over the due slots with their jobs. No lock is held between the read
 * and the advance; the advance's compare-and-set on the mark decides which scheduler wrote a slot.
 */
public final class Round {

  private static final Logger LOG = LoggerFactory.getLogger(Round.class);

  private final ScheduleStore store;
  private final List<Entry> schedules;
  private final Counters counters;
  private final String scheduler;

  /** The schedules whose conflict was logged: once each, not every round. */
  private final Set<String> warned = ConcurrentHashMap.newKeySet();

  /** A schedule with its slots and definition text, computed once. */
  private record Entry(Schedule schedule, Slots slots, String definition) {}

  public Round(ScheduleStore store, List<Schedule> schedules, Counters counters, String scheduler) {
    this.store = store;
    this.schedules =
        schedules.stream().map(s -> new Entry(s, TriggerSlots.of(s), Definition.of(s))).toList();
    this.counters = counters;
    this.scheduler = scheduler;
  }

  /**
   * Runs one round; returns how long until the next slot of any schedule, on the store's clock. A
   * schedule whose registration or advance fails is counted and logged, and the others go on.
   *
   * @throws RuntimeException what reading the marks threw
   */
  public Duration run() {
    ScheduleSnapshot snapshot =
        store.read(schedules.stream().map(e -> e.schedule().name()).toList());
    Instant now = snapshot.now();
    Instant soonest = now.plus(Duration.ofDays(1));
    for (Entry entry : schedules) {
      try {
        if (runOne(entry, snapshot)) {
          Optional<Instant> next = entry.slots().next(now);
          if (next.isPresent() && next.get().isBefore(soonest)) {
            soonest = next.get();
          }
        }
      } catch (RuntimeException e) {
        // one schedule's failure (a payload the store refuses, say) does not hold up the others
        counters.failed();
        LOG.warn("scheduler {}: schedule {} failed", scheduler, entry.schedule().name(), e);
      }
    }
    return Duration.between(now, soonest);
  }

  /** Registers the schedule if needed and advances it; returns whether this scheduler runs it. */
  private boolean runOne(Entry entry, ScheduleSnapshot snapshot) {
    Schedule schedule = entry.schedule();
    ScheduleState stored = snapshot.find(schedule.name()).orElse(null);
    if (stored == null || stored.revision() < schedule.revision()) {
      stored = store.register(schedule.name(), schedule.revision(), entry.definition());
    }
    if (!runs(entry, stored)) {
      return false;
    }
    advance(entry, stored, snapshot.now());
    return true;
  }

  /** Whether the stored revision and definition are this scheduler's; counts why not. */
  private boolean runs(Entry entry, ScheduleState stored) {
    if (stored.revision() > entry.schedule().revision()) {
      counters.add(Counters.Count.SUPERSEDED, 1);
      return false;
    }
    if (!stored.definition().equals(entry.definition())) {
      counters.add(Counters.Count.CONFLICTS, 1);
      if (!warned.add(stored.name())) {
        return false;
      }
      LOG.warn(
          "scheduler {}: schedule {} is stored at revision {} with another definition than this"
              + " scheduler's; give a changed definition a higher revision. Enqueueing nothing for"
              + " it.",
          scheduler,
          stored.name(),
          stored.revision());
      return false;
    }
    return true;
  }

  private void advance(Entry entry, ScheduleState stored, Instant now) {
    Schedule schedule = entry.schedule();
    Optional<DuePlan> due =
        DuePlan.of(entry.slots(), stored.mark(), now, schedule.missed(), schedule.grace());
    if (due.isEmpty()) {
      return;
    }
    DuePlan plan = due.get();
    List<KeyedJob> jobs = plan.enqueue().stream().map(s -> SlotJobs.job(schedule, s)).toList();
    SlotAdvance outcome =
        store.advance(
            schedule.name(),
            schedule.revision(),
            stored.mark(),
            plan.mark(),
            schedule.queue(),
            jobs);
    switch (outcome) {
      case SlotAdvance.Advanced advanced -> {
        counters.add(
            Counters.Count.ENQUEUED, advanced.jobs().stream().filter(Enqueued::created).count());
        counters.add(Counters.Count.SKIPPED, plan.skipped());
      }
      case SlotAdvance.Refused refused -> counters.add(Counters.Count.TAKEN, 1);
    }
  }
}
