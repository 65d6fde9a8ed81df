package dev.fencing.spring.internal;

import dev.fencing.FencedQueue;
import dev.fencing.FencedReceiver;
import dev.fencing.micrometer.FencingMetrics;
import dev.fencing.micrometer.RuntimeMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The meters of fencing-micrometer in the application's registry, each with the tags of {@code
 * fencing.metrics.tags}, or nothing without a registry.
 */
final class Meters {

  private final @Nullable MeterRegistry registry;
  private final List<Tag> tags;

  /**
   * @throws IllegalArgumentException if a tag's key is one the meters set themselves, naming it
   */
  Meters(@Nullable MeterRegistry registry, Map<String, String> tags) {
    this.registry = registry;
    this.tags = tags.entrySet().stream().map(e -> Tag.of(e.getKey(), e.getValue())).toList();
    try {
      // checked with or without a registry, so a bad key stops every context alike
      FencingMetrics.builder(new SimpleMeterRegistry()).tags(this.tags);
    } catch (IllegalArgumentException e) {
      // no cause: Spring reports the root cause's message, which would not name the property
      throw new IllegalArgumentException("fencing.metrics.tags: " + e.getMessage());
    }
  }

  /** Returns the meters in the application's registry, or null without one. */
  @Nullable FencingMetrics metrics() {
    return registry == null ? null : FencingMetrics.builder(registry).tags(tags).build();
  }

  /** Returns {@code queue} metered, or as it is without a registry. */
  FencedQueue queue(FencedQueue queue) {
    FencingMetrics metrics = metrics();
    return metrics == null ? queue : metrics.queue(queue);
  }

  /** Returns {@code receiver} metered, or as it is without a registry. */
  FencedReceiver receiver(FencedReceiver receiver) {
    FencingMetrics metrics = metrics();
    return metrics == null ? receiver : metrics.receiver(receiver);
  }

  /**
   * Registers the depth gauges of {@code queues}, read through {@code queue}, and returns the
   * meters of the runtimes and the workers; null without a registry.
   */
  @Nullable FencingMetrics watch(FencedQueue queue, Collection<String> queues) {
    if (registry == null) {
      return null;
    }
    FencingMetrics metrics =
        FencingMetrics.builder(registry)
            .tags(tags)
            .watchDepth(queues.toArray(String[]::new))
            .build();
    metrics.queue(queue);
    return metrics;
  }

  /** Returns the meters of the runtime of {@code queue}, or null without a registry. */
  static @Nullable RuntimeMetrics runtime(@Nullable FencingMetrics metrics, String queue) {
    return metrics == null ? null : metrics.runtime(queue);
  }
}
