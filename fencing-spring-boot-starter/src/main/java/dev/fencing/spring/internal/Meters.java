package dev.fencing.spring.internal;

import dev.fencing.FencedQueue;
import dev.fencing.micrometer.FencingMetrics;
import dev.fencing.micrometer.RuntimeMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Collection;
import org.jspecify.annotations.Nullable;

/** The meters of fencing-micrometer in the application's registry, or nothing without one. */
final class Meters {

  private final @Nullable MeterRegistry registry;

  Meters(@Nullable MeterRegistry registry) {
    this.registry = registry;
  }

  /** Returns the meters in the application's registry, or null without one. */
  @Nullable FencingMetrics metrics() {
    return registry == null ? null : FencingMetrics.builder(registry).build();
  }

  /** Returns {@code queue} metered, or as it is without a registry. */
  FencedQueue queue(FencedQueue queue) {
    return registry == null ? queue : FencingMetrics.builder(registry).build().queue(queue);
  }

  /**
   * Registers the depth gauges of {@code queues}, read through {@code queue}, and returns the
   * meters of one runtime per queue by name; null without a registry.
   */
  @Nullable FencingMetrics watch(FencedQueue queue, Collection<String> queues) {
    if (registry == null) {
      return null;
    }
    FencingMetrics metrics =
        FencingMetrics.builder(registry).watchDepth(queues.toArray(String[]::new)).build();
    metrics.queue(queue);
    return metrics;
  }

  /** Returns the meters of the runtime of {@code queue}, or null without a registry. */
  static @Nullable RuntimeMetrics runtime(@Nullable FencingMetrics metrics, String queue) {
    return metrics == null ? null : metrics.runtime(queue);
  }
}
