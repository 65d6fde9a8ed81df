/**
 * Keyed calls to non-cooperating services: {@link dev.fencing.keyed.KeyedHttp} is the front door,
 * {@link dev.fencing.keyed.KeyedCalls} what it builds.
 */
@NullMarked
package dev.fencing.keyed;

import org.jspecify.annotations.NullMarked;
