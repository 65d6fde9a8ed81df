/** The PostgreSQL backend: {@link dev.fencing.postgres.PostgresFencing} is the front door. */
@NullMarked
package dev.fencing.postgres;

import org.jspecify.annotations.NullMarked;
