/**
 * A queue in memory, to unit-test handlers and a runtime without a database: {@link
 * dev.fencing.testkit.memory.InMemoryQueue}, which keeps every rule of the queue's contract, and
 * {@link dev.fencing.testkit.memory.ManualClock}, a clock a test moves to run leases out without
 * sleeping.
 *
 * <p>No optional dependency.
 */
@NullMarked
package dev.fencing.testkit.memory;

import org.jspecify.annotations.NullMarked;
