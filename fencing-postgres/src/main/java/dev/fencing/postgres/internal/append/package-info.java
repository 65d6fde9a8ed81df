/**
 * The append-only engine (docs/ENGINE.md): jobs inserted once, one claim row per batch, a hand-out
 * per job and an end row per job; {@link dev.fencing.postgres.internal.append.AppendStore} is its
 * {@link dev.fencing.postgres.internal.JobStore}. Not API, not exported.
 */
@NullMarked
package dev.fencing.postgres.internal.append;

import org.jspecify.annotations.NullMarked;
