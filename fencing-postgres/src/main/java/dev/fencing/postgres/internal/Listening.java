package dev.fencing.postgres.internal;

import jakarta.inject.Qualifier;
import java.lang.annotation.Documented;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;

/**
 * Marks the data source the listening connection of the wake-ups comes from (see {@link Listener}):
 * the handle's own, unless the builder was given one that keeps a session past a pooler in
 * transaction mode.
 */
@Qualifier
@Documented
@Retention(RetentionPolicy.RUNTIME)
@interface Listening {}
