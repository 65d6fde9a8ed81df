/** Implementation of the PostgreSQL backend; not API, not exported. */
@NullMarked
package dev.fencing.postgres.internal;

import org.jspecify.annotations.NullMarked;
