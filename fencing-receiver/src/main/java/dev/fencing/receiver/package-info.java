/** Fenced receivers with no database: {@link dev.fencing.receiver.Receivers#inMemory()}. */
@NullMarked
package dev.fencing.receiver;

import org.jspecify.annotations.NullMarked;
