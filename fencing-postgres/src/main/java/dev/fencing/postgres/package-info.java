/**
 * The PostgreSQL backend: {@link dev.fencing.postgres.PostgresFencing} is the front door of the job
 * queue, {@link dev.fencing.postgres.PostgresOwnership} that of resource ownership, {@link
 * dev.fencing.postgres.PostgresAdmin} that of inspection and operator changes.
 */
@NullMarked
package dev.fencing.postgres;

import org.jspecify.annotations.NullMarked;
