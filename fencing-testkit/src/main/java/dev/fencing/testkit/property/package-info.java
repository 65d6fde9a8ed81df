/**
 * Property-based interleaving tests: one engine ({@link
 * dev.fencing.testkit.property.PropertySearch}) draws schedules of one {@link
 * dev.fencing.testkit.property.Step} type, runs them on real processes, checks invariants after
 * every step, and shrinks a failing one; one seed replays a search. Suites for workers ({@link
 * dev.fencing.testkit.property.ZombieSafetyProperties}) and producers ({@link
 * dev.fencing.testkit.property.OwnershipSafetyProperties}).
 *
 * <p>Optional dependency: {@code org.quicktheories:quicktheories}, which draws the schedules; add
 * it to your test scope. The suites get their PostgreSQL from {@link dev.fencing.testkit.db}, so
 * they need one of that package's routes too.
 */
@NullMarked
package dev.fencing.testkit.property;

import org.jspecify.annotations.NullMarked;
