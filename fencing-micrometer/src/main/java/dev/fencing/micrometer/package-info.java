/**
 * Micrometer meters for fencing: {@link dev.fencing.micrometer.FencingMetrics} wraps a queue and a
 * receiver in metered decorators, watches queue depth, and binds a worker runtime's counters.
 */
@NullMarked
package dev.fencing.micrometer;

import org.jspecify.annotations.NullMarked;
