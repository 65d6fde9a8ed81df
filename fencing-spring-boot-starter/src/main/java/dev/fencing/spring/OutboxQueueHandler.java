package dev.fencing.spring;

import dev.fencing.runtime.OutboxHandler;

/**
 * A bean that runs the jobs of one queue and returns, with each result, outbox messages that the
 * commit writes in the transaction of the job's compare-and-set: a worker fenced off writes none.
 * An {@link OutboxRelay} bean sends them afterwards.
 *
 * <pre>{@code
 * @Component
 * class Invoices implements OutboxQueueHandler {
 *   public String queue() { return "invoices"; }
 *   public HandlerResult handle(Job job, Cancellation cancellation) {
 *     return HandlerResult.of("{}", new OutboxMessage("mail", key(job), email(job)));
 *   }
 * }
 * }</pre>
 *
 * <p>One handler per queue, of either kind: a {@code QueueHandler} and an {@code
 * OutboxQueueHandler} naming the same queue stop the context from starting, as two of one kind do.
 *
 * @since 0.1
 */
public interface OutboxQueueHandler extends OutboxHandler {

  /** The queue whose jobs this handler runs: a plain identifier ({@code [a-z_][a-z0-9_]{0,62}}). */
  String queue();
}
