/**
 * Choosing a lease length: {@link dev.fencing.tuning.LeaseModel} predicts how many live workers a
 * lease fences off because of their pauses. Pure arithmetic, no I/O; used by {@code fencing tune}
 * and by the benchmarks' lease-tuning report.
 */
@NullMarked
package dev.fencing.tuning;

import org.jspecify.annotations.NullMarked;
