package dev.fencing.spi;

import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Stored schedules and the store's clock, read together (see {@link ScheduleStore#read}).
 *
 * @param now the store's clock at the read: the time by which slots are judged due
 * @param schedules the stored schedules, by name
 * @since 0.1
 */
public record ScheduleSnapshot(Instant now, List<ScheduleState> schedules) {

  /**
   * @throws NullPointerException if a parameter is null
   */
  public ScheduleSnapshot {
    Objects.requireNonNull(now, "now");
    schedules = List.copyOf(schedules);
  }

  /** Returns the stored schedule named {@code name}, if any. */
  public Optional<ScheduleState> find(String name) {
    return schedules.stream().filter(s -> s.name().equals(name)).findFirst();
  }
}
