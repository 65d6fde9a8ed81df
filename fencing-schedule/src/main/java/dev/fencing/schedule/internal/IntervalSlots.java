package dev.fencing.schedule.internal;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * A slot at every whole multiple of an interval since 1970-01-01T00:00Z, computed in milliseconds
 * (an interval is whole milliseconds; instants between are rounded down to the millisecond, which
 * cannot cross a slot).
 */
final class IntervalSlots implements Slots {

  private final long millis;

  IntervalSlots(Duration interval) {
    this.millis = interval.toMillis();
  }

  @Override
  public Optional<Instant> next(Instant after) {
    return Optional.of(
        Instant.ofEpochMilli((Math.floorDiv(after.toEpochMilli(), millis) + 1) * millis));
  }

  @Override
  public Optional<Instant> latest(Instant atOrBefore) {
    return Optional.of(Instant.ofEpochMilli(index(atOrBefore) * millis));
  }

  @Override
  public long count(Instant after, Instant atOrBefore) {
    return Math.max(0, index(atOrBefore) - index(after));
  }

  private long index(Instant t) {
    return Math.floorDiv(t.toEpochMilli(), millis);
  }
}
