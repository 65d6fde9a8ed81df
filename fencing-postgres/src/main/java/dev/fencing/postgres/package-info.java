/**
 * The PostgreSQL backend: {@link dev.fencing.postgres.PostgresFencing} is its one front door (the
 * queue, receivers, resource ownership, the outbox relay, maintenance and the operators' admin, in
 * one schema).
 */
@NullMarked
package dev.fencing.postgres;

import org.jspecify.annotations.NullMarked;
