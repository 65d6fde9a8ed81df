package dev.fencing.micrometer.internal;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Tags;
import java.util.function.ToDoubleFunction;
import org.jspecify.annotations.Nullable;

/**
 * Function counters that share a name and a description: one per value of {@code tag}, or a single
 * one when {@code tag} is null. Each binding registers its counters from a table of these.
 *
 * @param name the meter's name
 * @param description the meter's description
 * @param tag the tag whose values tell the family's counters apart, or null for a single counter
 */
record CounterFamily(String name, String description, @Nullable String tag) {

  /** A family of one counter, with no tag of its own. */
  static CounterFamily single(String name, String description) {
    return new CounterFamily(name, description, null);
  }

  /**
   * Registers the counter {@code tag=value} (for a single counter, {@code value} is not used), read
   * from {@code source} when the registry publishes.
   */
  <T> FunctionCounter register(
      Instruments meters, Tags tags, String value, T source, ToDoubleFunction<T> count) {
    return FunctionCounter.builder(name, source, count)
        .description(description)
        .tags(meters.common)
        .tags(tag == null ? tags : tags.and(tag, value))
        .register(meters.registry);
  }
}
