package dev.fencing.spring;

import dev.fencing.runtime.Handler;

/**
 * A bean that runs the jobs of one queue. The starter starts one {@link
 * dev.fencing.runtime.FencedWorkers} queue per queue that has a handler, with the settings of
 * {@code fencing.queues.<queue>.*}, when the application context starts, and drains it when the
 * context closes.
 *
 * <pre>{@code
 * @Component
 * class EmailHandler implements QueueHandler {
 *   public String queue() { return "emails"; }
 *   public String handle(Job job, Cancellation cancellation) { return send(job.payload()); }
 * }
 * }</pre>
 *
 * <p>One handler per queue: two beans naming the same queue stop the context from starting. The
 * handler runs on the runtime's threads, {@code fencing.queues.<queue>.concurrency} at a time; its
 * result is committed only if this process still holds the job's lease (owner and epoch).
 */
public interface QueueHandler extends Handler {

  /** The queue whose jobs this handler runs: a plain identifier ({@code [a-z_][a-z0-9_]{0,62}}). */
  String queue();
}
