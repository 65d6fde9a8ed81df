package dev.fencing.spring.internal;

import dev.fencing.KeyedJob;
import dev.fencing.spi.ScheduleSnapshot;
import dev.fencing.spi.ScheduleState;
import dev.fencing.spi.ScheduleStore;
import dev.fencing.spi.SlotAdvance;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;

/**
 * A schedule store that notes when a round last read the marks (on the database's clock, as the
 * round judges slots); every call is passed on unchanged.
 */
final class LastRound implements ScheduleStore {

  private final ScheduleStore store;
  private final AtomicReference<@Nullable Instant> last = new AtomicReference<>();

  LastRound(ScheduleStore store) {
    this.store = store;
  }

  /** Returns the database's time at the latest round that read the marks, or null before one. */
  @Nullable Instant last() {
    return last.get();
  }

  @Override
  public ScheduleState register(String name, long revision, String definition) {
    return store.register(name, revision, definition);
  }

  @Override
  public ScheduleSnapshot read(Collection<String> names) {
    ScheduleSnapshot snapshot = store.read(names);
    last.set(snapshot.now());
    return snapshot;
  }

  @Override
  public ScheduleSnapshot list() {
    return store.list();
  }

  @Override
  public SlotAdvance advance(
      String name, long revision, Instant from, Instant to, String queue, List<KeyedJob> jobs) {
    return store.advance(name, revision, from, to, queue, jobs);
  }
}
