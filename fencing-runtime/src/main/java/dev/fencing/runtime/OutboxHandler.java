package dev.fencing.runtime;

import dev.fencing.Job;

/**
 * Computes a job's result and the outbox messages to commit with it (an email, a ledger entry): the
 * runtime writes the messages in the transaction of the job's compare-and-set, so a worker fenced
 * off writes none, and a relay sends them afterwards. For a result alone, use {@link Handler}.
 *
 * @since 0.1
 */
@FunctionalInterface
public interface OutboxHandler {

  /**
   * Returns the job's result and messages, for example {@code HandlerResult.of("{}", new
   * OutboxMessage("mail", to, email))}. Throwing fails the job, as with {@link Handler}, and so
   * does returning null; cancellation works as for {@link Handler}.
   */
  HandlerResult handle(Job job, Cancellation cancellation) throws Exception;
}
