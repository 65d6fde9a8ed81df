/**
 * For backend authors: implement these to plug a store into fencing-schedule; applications never
 * call them. A backend's {@link dev.fencing.spi.ScheduleStore} keeps each schedule's definition and
 * high-water mark ({@link dev.fencing.spi.ScheduleState}, read with the store's clock as a {@link
 * dev.fencing.spi.ScheduleSnapshot}) and advances a mark together with the slots' jobs ({@link
 * dev.fencing.spi.SlotAdvance}).
 */
@NullMarked
package dev.fencing.spi;

import org.jspecify.annotations.NullMarked;
