/**
 * The fencing API: {@link dev.fencing.Epoch}, {@link dev.fencing.Lease}, {@link
 * dev.fencing.FencedOutcome}, and the interfaces a backend ({@link dev.fencing.FencedQueue}) and a
 * receiver ({@link dev.fencing.FencedReceiver}) implement.
 */
@NullMarked
package dev.fencing;

import org.jspecify.annotations.NullMarked;
