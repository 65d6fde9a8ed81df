package dev.fencing.spring;

import dev.fencing.JobType;
import dev.fencing.runtime.Handler;

/**
 * A handler bean the starter runs: on the queue of its {@link #type()}, each payload decoded as the
 * type's payload and each result encoded as its result, with the application's Jackson {@code
 * JsonMapper} when fencing-jackson is on the class path.
 *
 * <pre>{@code
 * record SendEmail(String to) {}
 * record Sent(String messageId) {}
 *
 * @Component
 * class EmailHandler implements QueueHandler<SendEmail, Sent> {
 *   static final JobType<SendEmail, Sent> SEND = JobType.of("emails", SendEmail.class, Sent.class);
 *
 *   public JobType<SendEmail, Sent> type() { return SEND; }
 *
 *   public Sent handle(JobContext<SendEmail> job, Cancellation cancellation) {
 *     return mailer.send(job.payload().to(), job.epoch());
 *   }
 * }
 * }</pre>
 *
 * <p>One bean per queue; {@code fencing.queues.<queue>.*} sets its queue's settings.
 *
 * @param <P> the payload's type
 * @param <R> the result's type
 * @since 0.1
 */
public interface QueueHandler<P, R> extends Handler<P, R> {

  /** Returns the job type this bean runs: its queue, and its payload's and result's classes. */
  JobType<P, R> type();
}
