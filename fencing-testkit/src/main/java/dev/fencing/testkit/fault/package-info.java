/**
 * Faults on the wire: {@link dev.fencing.testkit.fault.FlakyProxy}, a TCP proxy in front of
 * PostgreSQL that loses a commit's acknowledgement after the commit has landed; and faults in the
 * code: {@link dev.fencing.testkit.fault.ForwardingQueue}, a queue that passes every call on, for a
 * test to override the ones it breaks.
 *
 * <p>No optional dependency.
 */
@NullMarked
package dev.fencing.testkit.fault;

import org.jspecify.annotations.NullMarked;
