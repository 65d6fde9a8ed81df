/**
 * Fenced receivers: {@link dev.fencing.receiver.Receivers#inMemory()} and {@link
 * dev.fencing.receiver.Receivers#postgres(javax.sql.DataSource)}.
 */
@NullMarked
package dev.fencing.receiver;

import org.jspecify.annotations.NullMarked;
