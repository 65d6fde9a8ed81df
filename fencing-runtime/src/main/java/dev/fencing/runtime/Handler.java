package dev.fencing.runtime;

import dev.fencing.Job;

/**
 * Computes a job's result; the runtime delivers it to the receiver, if it has one, then commits it.
 * To commit outbox messages with the result, use {@link OutboxHandler}.
 */
@FunctionalInterface
public interface Handler {

  /**
   * Returns the job's result as JSON. Throwing fails the job: it is claimable again after the retry
   * delay, until its attempts run out.
   *
   * <p>Long work should poll {@code cancellation} or answer interruption: when the lease is lost (a
   * renewal was refused, or could not be made before the lease ran out) or the runtime stops and
   * its drain timeout has passed, the thread is interrupted and whatever the handler returns is
   * dropped, never delivered or committed.
   */
  String handle(Job job, Cancellation cancellation) throws Exception;
}
