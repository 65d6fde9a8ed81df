package dev.fencing.testkit.memory;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A clock that stands still until a test moves it: give it to {@link InMemoryQueue.Builder#clock}
 * and {@link #advance} it past a lease's expiry instead of sleeping. Thread-safe; every clock made
 * from it by {@link #withZone} reads and moves the same instant.
 *
 * <pre>{@code
 * ManualClock clock = ManualClock.startingNow();
 * InMemoryQueue queue = InMemoryQueue.builder().clock(clock).build();
 * Job zombie = queue.claim("q", "w1", Duration.ofSeconds(30)).orElseThrow();
 * clock.advance(Duration.ofSeconds(31)); // the lease ran out; no one slept
 * }</pre>
 *
 * @since 0.1
 */
public final class ManualClock extends Clock {

  private final AtomicReference<Instant> now;
  private final ZoneId zone;

  private ManualClock(AtomicReference<Instant> now, ZoneId zone) {
    this.now = now;
    this.zone = zone;
  }

  /** Returns a clock standing at {@code instant}, in UTC. */
  public static ManualClock at(Instant instant) {
    return new ManualClock(
        new AtomicReference<>(Objects.requireNonNull(instant, "instant")), ZoneOffset.UTC);
  }

  /** Returns a clock standing at this moment of the system clock, in UTC. */
  public static ManualClock startingNow() {
    return at(Instant.now());
  }

  /**
   * Moves the clock forward by {@code duration}.
   *
   * @return the new instant
   * @throws IllegalArgumentException if {@code duration} is null or negative: time does not go back
   */
  public Instant advance(Duration duration) {
    if (duration == null || duration.isNegative()) {
      throw new IllegalArgumentException("duration must be zero or more, but was " + duration);
    }
    return now.updateAndGet(t -> t.plus(duration));
  }

  /**
   * Moves the clock to {@code instant}, if that is not before where it stands.
   *
   * @throws IllegalArgumentException if {@code instant} is null or before the clock's instant; the
   *     clock did not move
   */
  public void set(Instant instant) {
    if (instant == null) {
      throw new IllegalArgumentException("instant must be an instant, but was null");
    }
    Instant before = now.getAndAccumulate(instant, (t, i) -> i.isBefore(t) ? t : i);
    if (instant.isBefore(before)) {
      throw new IllegalArgumentException(
          "instant must not be before the clock's " + before + ", but was " + instant);
    }
  }

  @Override
  public Instant instant() {
    return now.get();
  }

  @Override
  public ZoneId getZone() {
    return zone;
  }

  @Override
  public ManualClock withZone(ZoneId zone) {
    return new ManualClock(now, Objects.requireNonNull(zone, "zone"));
  }

  @Override
  public String toString() {
    return "ManualClock[" + now.get() + ", " + zone + "]";
  }
}
