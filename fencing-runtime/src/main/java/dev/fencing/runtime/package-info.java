/**
 * The worker runtime: {@link dev.fencing.runtime.FencedWorkers}, the one door, claims, renews,
 * hands jobs to {@link dev.fencing.runtime.Handler}s or {@link dev.fencing.runtime.OutboxHandler}s,
 * delivers, commits (with outbox messages), relays the outbox and shuts down; each job ends in one
 * {@link dev.fencing.runtime.WorkOutcome}.
 */
@NullMarked
package dev.fencing.runtime;

import org.jspecify.annotations.NullMarked;
