package dev.fencing.spi;

import dev.fencing.internal.Validate;
import java.time.Instant;
import java.util.Objects;

/**
 * One stored schedule (see {@link ScheduleStore}).
 *
 * @param name letters, digits, {@code _ . -}, 1 to {@value Validate#MAX_SCHEDULE_NAME_LENGTH}
 *     characters
 * @param revision the revision of the stored definition, at least 1
 * @param definition the stored definition, as its scheduler wrote it
 * @param mark the high-water mark: every slot at or before it has been dealt with
 * @since 0.1
 */
public record ScheduleState(String name, long revision, String definition, Instant mark) {

  /**
   * @throws IllegalArgumentException naming the first bad parameter and its value
   */
  public ScheduleState {
    Validate.scheduleName(name);
    Validate.between("revision", revision, 1, Long.MAX_VALUE);
    Objects.requireNonNull(definition, "definition");
    Objects.requireNonNull(mark, "mark");
  }
}
