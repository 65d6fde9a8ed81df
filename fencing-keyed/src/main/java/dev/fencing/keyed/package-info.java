/**
 * Keyed calls to non-cooperating services: {@link dev.fencing.keyed.KeyedCalls} is the front door.
 */
@NullMarked
package dev.fencing.keyed;

import org.jspecify.annotations.NullMarked;
