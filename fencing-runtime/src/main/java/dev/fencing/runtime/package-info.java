/**
 * The worker runtime: {@link dev.fencing.runtime.FencedRuntime} claims, renews, hands jobs to
 * {@link dev.fencing.runtime.Handler}s, delivers, commits and shuts down; each job ends in one
 * {@link dev.fencing.runtime.WorkOutcome}.
 */
@NullMarked
package dev.fencing.runtime;

import org.jspecify.annotations.NullMarked;
