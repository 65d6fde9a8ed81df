package dev.fencing.runtime;

import dev.fencing.Maintenance;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs maintenance rounds: one after another while a round says more is left, then one every {@code
 * every}, or every {@link Maintenance#upkeepEvery()} when that is shorter (at least a second
 * apart), so that the storage upkeep of rounds keeps its pace whatever the pace chosen for
 * retention: with rounds a minute apart, VACUUM ran once a minute and claims slowed from 3 to 9 ms
 * as dead versions piled up (docs/BENCHMARKS.md). A failing round is logged and counted, and the
 * next one waits, from one second doubling up to {@code every}; nothing a round does is a job of
 * this runtime, so a failure never touches the work in flight.
 */
final class MaintenanceLoop extends Loop {

  private static final Logger LOG = LoggerFactory.getLogger(Pipeline.LOGGER);
  private static final Duration FIRST_BACKOFF = Duration.ofSeconds(1);

  private final Maintenance maintenance;
  private final Duration every;

  /** What is counted, in the order of {@link MaintenanceStats}. */
  enum Count {
    ROUNDS,
    JOBS_REMOVED,
    JOBS_ARCHIVED,
    MESSAGES_REMOVED,
    FAILURES
  }

  private final Tally<Count> tally = new Tally<>(Count.class);

  MaintenanceLoop(Maintenance maintenance, Duration every) {
    this.maintenance = maintenance;
    Duration pace = every;
    Duration upkeep = maintenance.upkeepEvery().orElse(every);
    if (upkeep.compareTo(pace) < 0) {
      pace = upkeep.compareTo(FIRST_BACKOFF) < 0 ? FIRST_BACKOFF : upkeep;
    }
    this.every = pace;
  }

  @Override
  public void run() {
    Duration backoff = FIRST_BACKOFF;
    while (running()) {
      Maintenance.Report report;
      try {
        report = maintenance.runRound();
      } catch (RuntimeException e) {
        tally.increment(Count.FAILURES);
        LOG.warn("maintenance round failed; next try in {}", backoff, e);
        pause(backoff.toNanos());
        // every is at least FIRST_BACKOFF (checked by the builder)
        backoff = doubled(backoff, every);
        continue;
      }
      backoff = FIRST_BACKOFF;
      tally.increment(Count.ROUNDS);
      tally.add(Count.JOBS_REMOVED, report.jobsRemoved());
      tally.add(Count.JOBS_ARCHIVED, report.jobsArchived());
      tally.add(Count.MESSAGES_REMOVED, report.messagesRemoved());
      if (!report.moreLeft()) {
        pause(every.toNanos());
      }
    }
  }

  long count(Count name) {
    return tally.get(name);
  }
}
