package dev.fencing.runtime;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Counters named by the constants of an enum, each safe to add to from any thread: the runtime's
 * ({@link Counters}), its maintenance's and its relay's, read into their stats records.
 *
 * @param <E> the names of the counters
 */
final class Tally<E extends Enum<E>> {

  private final AtomicLongArray values;

  Tally(Class<E> names) {
    this.values = new AtomicLongArray(names.getEnumConstants().length);
  }

  void add(E name, long amount) {
    values.addAndGet(name.ordinal(), amount);
  }

  void increment(E name) {
    add(name, 1);
  }

  long get(E name) {
    return values.get(name.ordinal());
  }
}
