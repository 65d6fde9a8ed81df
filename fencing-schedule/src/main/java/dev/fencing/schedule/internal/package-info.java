/** Slot arithmetic, the cron parser behind a string, definitions as text, the scheduling loop. */
@NullMarked
package dev.fencing.schedule.internal;

import org.jspecify.annotations.NullMarked;
