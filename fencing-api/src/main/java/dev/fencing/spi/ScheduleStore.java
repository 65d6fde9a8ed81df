package dev.fencing.spi;

import dev.fencing.FencedQueue;
import dev.fencing.KeyedJob;
import dev.fencing.SchemaNotInstalledException;
import dev.fencing.StoreUnavailableException;
import java.time.Instant;
import java.util.Collection;
import java.util.List;

/**
 * Where recurring schedules keep their definitions and their high-water marks: per schedule, the
 * newest revision of its definition and the latest slot that has been dealt with (enqueued or
 * skipped). A scheduler (fencing-schedule's {@code FencedScheduler}) reads marks, computes the due
 * slots on its own, and then {@link #advance advances} a mark by a compare-and-set from the value
 * it read, in the same statement that enqueues the slots' jobs: a scheduler that stalled between
 * the read and the advance finds the mark moved, and enqueues nothing.
 *
 * <p>Rows are never deleted by the library, so a mark only moves forward, whatever retention
 * removes from the job table.
 *
 * <p>Failures of the store surface as on {@link FencedQueue}: {@link StoreUnavailableException},
 * {@link SchemaNotInstalledException}.
 *
 * @since 0.1
 */
public interface ScheduleStore {

  /**
   * Stores {@code definition} under {@code revision} unless the stored revision is as high or
   * higher; a schedule stored for the first time gets its mark at the store's clock now (no slot
   * before that is due). Safe to repeat and to race: the highest revision wins.
   *
   * @param name the schedule's name (see {@link ScheduleState})
   * @param revision at least 1
   * @param definition the schedule's definition as text, at most 100,000 characters
   * @return what is stored after the call: this definition, or the one that won
   * @throws IllegalArgumentException naming a bad parameter and its value; nothing written
   * @throws StoreUnavailableException if the store could not be reached or refused after the
   *     backend's retries; whether the definition was stored is unknown, and repeating is safe
   */
  ScheduleState register(String name, long revision, String definition);

  /**
   * Returns the stored schedules among {@code names} (missing ones are left out) and the store's
   * clock, read together.
   *
   * @throws IllegalArgumentException naming a bad name
   */
  ScheduleSnapshot read(Collection<String> names);

  /** Returns every stored schedule, by name, and the store's clock. */
  ScheduleSnapshot list();

  /**
   * Moves the mark of {@code name} from {@code from} to {@code to} and enqueues {@code jobs} on
   * {@code queue} under their keys, in one statement, only if the stored revision is still {@code
   * revision} and the stored mark still {@code from}; else writes nothing. A key already held by a
   * job of the queue adds no job (the mark still moves). A call whose acknowledgement was lost is
   * resolved on its retry: it reports the advance its first try made.
   *
   * @param from the mark as read
   * @param to after {@code from}
   * @param jobs at most 10,000, with distinct keys; may be empty (slots skipped)
   * @return {@link SlotAdvance.Advanced} with the jobs written, or {@link SlotAdvance.Refused} with
   *     what is stored now
   * @throws IllegalArgumentException naming a bad parameter and its value; nothing written
   * @throws StoreUnavailableException if the store could not be reached or refused after the
   *     backend's retries; whether the mark moved is unknown (read it again)
   */
  SlotAdvance advance(
      String name, long revision, Instant from, Instant to, String queue, List<KeyedJob> jobs);
}
