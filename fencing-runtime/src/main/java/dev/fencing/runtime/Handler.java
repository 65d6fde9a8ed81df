package dev.fencing.runtime;

import org.jspecify.annotations.Nullable;

/**
 * Computes a job's result from its decoded payload; the runtime encodes the result, delivers it to
 * the receiver, if there is one, then commits it. Typed by its {@link dev.fencing.JobType}:
 *
 * <pre>{@code
 * Handler<SendEmail, Sent> send = (job, cancellation) -> mailer.send(job.payload(), job.epoch());
 * }</pre>
 *
 * <p>With {@code JobType.raw(queue)} (or a queue named by a string) payload and result are JSON
 * text as stored. To commit outbox messages with the result, use {@link OutboxHandler}.
 *
 * @param <P> the payload's type
 * @param <R> the result's type
 * @since 0.1
 */
@FunctionalInterface
public interface Handler<P, R> {

  /**
   * Returns the job's result; {@code null} only when the result type is {@code Void}. Throwing
   * fails the job: it is claimable again after the retry delay, until its attempts run out. A
   * payload that does not decode never reaches the handler: the job ends failed at once with the
   * decoder's message.
   *
   * <p>Long work should poll {@code cancellation} or answer interruption: when the lease is lost (a
   * renewal was refused, or could not be made before the lease ran out) or the runtime stops and
   * its drain timeout has passed, the thread is interrupted and whatever the handler returns is
   * dropped, never delivered or committed.
   */
  @Nullable R handle(JobContext<P> job, Cancellation cancellation) throws Exception;
}
