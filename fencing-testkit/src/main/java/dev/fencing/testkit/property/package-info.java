/**
 * A test kit for fenced job queues: a PostgreSQL fixture, worker and producer processes driven as
 * puppets with real signals, the zombie scenario, and one property engine ({@link
 * dev.fencing.testkit.property.PropertySearch}) for workers ({@link
 * dev.fencing.testkit.property.ZombieSafetyProperties}) and producers ({@link
 * dev.fencing.testkit.property.OwnershipSafetyProperties}): one {@link
 * dev.fencing.testkit.property.Step} type, one shrinker, one seed that replays a search.
 */
@NullMarked
package dev.fencing.testkit.property;

import org.jspecify.annotations.NullMarked;
