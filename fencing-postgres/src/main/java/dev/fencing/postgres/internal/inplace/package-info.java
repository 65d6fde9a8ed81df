/**
 * The update-in-place engine: one row per job in {@code fencing_job}, updated by its claim and
 * commit; {@link dev.fencing.postgres.internal.inplace.InPlaceStore} is its {@link
 * dev.fencing.postgres.internal.JobStore}. Not API, not exported.
 */
@NullMarked
package dev.fencing.postgres.internal.inplace;

import org.jspecify.annotations.NullMarked;
