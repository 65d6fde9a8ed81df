/**
 * The PostgreSQL backend: {@link dev.fencing.postgres.PostgresFencing} is its one front door (the
 * queue, receivers, resource ownership, the outbox relay, maintenance and the operators' admin, in
 * one schema; the operators' types are in {@link dev.fencing.postgres.admin}).
 */
@NullMarked
package dev.fencing.postgres;

import org.jspecify.annotations.NullMarked;
