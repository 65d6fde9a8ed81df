package dev.fencing.schedule.internal;

import java.time.Instant;
import java.util.Optional;

/** The slots of a trigger: instants, ascending. */
public interface Slots {

  /** Returns the first slot strictly after {@code after}, if any. */
  Optional<Instant> next(Instant after);

  /** Returns the last slot at or before {@code atOrBefore}, if any. */
  Optional<Instant> latest(Instant atOrBefore);

  /** Returns how many slots lie in ({@code after}, {@code atOrBefore}]. */
  default long count(Instant after, Instant atOrBefore) {
    long n = 0;
    for (Optional<Instant> s = next(after);
        s.isPresent() && !s.get().isAfter(atOrBefore);
        s = next(s.get())) {
      n++;
    }
    return n;
  }
}
