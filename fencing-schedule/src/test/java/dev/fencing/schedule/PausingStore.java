package dev.fencing.schedule;

import dev.fencing.KeyedJob;
import dev.fencing.spi.ScheduleSnapshot;
import dev.fencing.spi.ScheduleState;
import dev.fencing.spi.ScheduleStore;
import dev.fencing.spi.SlotAdvance;
import java.io.PrintStream;
import java.time.Instant;
import java.util.Collection;
import java.util.List;

/**
 * A real store that says each advance before it makes it, then pauses: the window in which a test
 * freezes the process, so that it wakes with a mark read before the freeze.
 */
final class PausingStore implements ScheduleStore {

  private final ScheduleStore store;
  private final long pauseMillis;
  private final PrintStream out;

  PausingStore(ScheduleStore store, long pauseMillis, PrintStream out) {
    this.store = store;
    this.pauseMillis = pauseMillis;
    this.out = out;
  }

  @Override
  public ScheduleState register(String name, long revision, String definition) {
    return store.register(name, revision, definition);
  }

  @Override
  public ScheduleSnapshot read(Collection<String> names) {
    return store.read(names);
  }

  @Override
  public ScheduleSnapshot list() {
    return store.list();
  }

  @Override
  public SlotAdvance advance(
      String name, long revision, Instant from, Instant to, String queue, List<KeyedJob> jobs) {
    if (pauseMillis > 0) {
      say("advancing " + from + " " + to + " " + jobs.size());
      try {
        Thread.sleep(pauseMillis);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    SlotAdvance advance = store.advance(name, revision, from, to, queue, jobs);
    if (pauseMillis > 0) {
      say(advance instanceof SlotAdvance.Advanced ? "advanced " + to : "refused " + to);
    }
    return advance;
  }

  private void say(String line) {
    out.println(line);
    out.flush();
  }
}
