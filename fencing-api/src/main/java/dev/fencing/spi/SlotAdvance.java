package dev.fencing.spi;

import dev.fencing.Enqueued;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * What {@link ScheduleStore#advance} did: moved the mark and enqueued, or nothing.
 *
 * @since 0.1
 */
public sealed interface SlotAdvance {

  /**
   * The mark moved, and the jobs were enqueued in the same statement.
   *
   * @param jobs one per job given, in order; {@link Enqueued#created()} false for a key that a job
   *     of the queue held already
   */
  record Advanced(List<Enqueued> jobs) implements SlotAdvance {
    /**
     * @throws NullPointerException if {@code jobs} is null
     */
    public Advanced {
      jobs = List.copyOf(jobs);
    }
  }

  /**
   * Nothing was written: the stored mark or revision was not the one given (another scheduler moved
   * the mark, or a newer revision was stored), or the schedule is not stored.
   *
   * @param stored what is stored now, or null if the schedule is not stored
   */
  record Refused(@Nullable ScheduleState stored) implements SlotAdvance {}
}
