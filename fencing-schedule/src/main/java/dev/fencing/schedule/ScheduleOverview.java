package dev.fencing.schedule;

import dev.fencing.spi.ScheduleState;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A stored schedule and its next slots (see {@link FencedScheduler#overview}).
 *
 * @param stored the row: name, revision, definition, mark
 * @param schedule the definition read back, or null if this version cannot read it (a newer version
 *     wrote it)
 * @param nextSlots its next slots after its mark or the store's clock, whichever is later
 * @since 0.1
 */
public record ScheduleOverview(
    ScheduleState stored, @Nullable Schedule schedule, List<Instant> nextSlots) {

  /**
   * @throws NullPointerException if {@code stored} or {@code nextSlots} is null
   */
  public ScheduleOverview {
    Objects.requireNonNull(stored, "stored");
    nextSlots = List.copyOf(nextSlots);
  }
}
