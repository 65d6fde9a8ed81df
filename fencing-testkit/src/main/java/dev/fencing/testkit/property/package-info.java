/**
 * Property-based interleaving tests: one engine ({@link
 * dev.fencing.testkit.property.PropertySearch}) draws interleavings of one {@link
 * dev.fencing.testkit.property.Step} type, runs them on real processes, checks invariants after
 * every step, and shrinks a failing one; one seed replays a search. Suites for workers ({@link
 * dev.fencing.testkit.property.ZombieSafetyProperties}), for workers on a queue with a running
 * limit ({@link dev.fencing.testkit.property.LimitSafetyProperties}) and for producers ({@link
 * dev.fencing.testkit.property.OwnershipSafetyProperties}). An interleaving is the order in which
 * the processes take their steps (a recurring job is a schedule, in {@code fencing-schedule}).
 *
 * <p>Optional dependency: {@code org.quicktheories:quicktheories}, which draws the interleavings;
 * add it to your test scope. The suites get their PostgreSQL from {@link dev.fencing.testkit.db},
 * so they need one of that package's routes too.
 */
@NullMarked
package dev.fencing.testkit.property;

import org.jspecify.annotations.NullMarked;
