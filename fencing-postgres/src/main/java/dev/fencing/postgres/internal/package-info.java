/**
 * Implementation of the PostgreSQL backend; not API, not exported. What both storage engines share
 * is here, written once against {@link dev.fencing.postgres.internal.JobStore}, the seam between
 * them; each engine is in a package of its own ({@code inplace}, {@code append}).
 */
@NullMarked
package dev.fencing.postgres.internal;

import org.jspecify.annotations.NullMarked;
