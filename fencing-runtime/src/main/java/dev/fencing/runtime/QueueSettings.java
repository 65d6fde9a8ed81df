package dev.fencing.runtime;

import dev.fencing.FencedReceiver;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * One queue's settings in {@link FencedWorkers.Builder#queue(String, Handler,
 * java.util.function.Consumer)}: how many handlers, how long a lease, how big a batch, how soon a
 * retry, which kind of thread and which receiver. It cannot name the queue, the owner, the handler,
 * the relay or maintenance: those are the door's. Every setting is checked when the workers start,
 * and an error names the queue and the setting.
 *
 * <pre>{@code
 * .queue("pdf", pdfHandler, q -> q.concurrency(2).leaseLength(Duration.ofMinutes(5)))
 * }</pre>
 *
 * @since 0.1
 */
public final class QueueSettings {

  private final QueueRuntime.Builder runtime;

  QueueSettings(QueueRuntime.Builder runtime) {
    this.runtime = runtime;
  }

  /** Handler threads, 1 to 10,000; default 4. */
  public QueueSettings concurrency(int concurrency) {
    runtime.concurrency(concurrency);
    return this;
  }

  /**
   * Claimed jobs that may wait for a free handler thread, 0 to 10,000; default as many as {@code
   * concurrency}. Waiting jobs are renewed like running ones. A claim holds its slot until its
   * handler is done; its commit does not hold one (up to two batches of results, or as many as
   * there are slots, may wait for their commit while the next claims go out, and handler threads
   * wait to hand over beyond that). For throughput with short handlers raise this to a few batches
   * (see docs/BENCHMARKS.md).
   */
  public QueueSettings prefetch(int prefetch) {
    runtime.prefetch(prefetch);
    return this;
  }

  /** Most jobs per claim statement and results per commit statement, 1 to 10,000; default 100. */
  public QueueSettings batchSize(int batchSize) {
    runtime.batchSize(batchSize);
    return this;
  }

  /** The lease of each claim and renewal; default 30 s. */
  public QueueSettings leaseLength(Duration leaseLength) {
    runtime.leaseLength(leaseLength);
    return this;
  }

  /**
   * How often the leases in flight are renewed (those older than half of it); default a third of
   * the lease.
   */
  public QueueSettings heartbeatInterval(Duration heartbeatInterval) {
    runtime.heartbeatInterval(heartbeatInterval);
    return this;
  }

  /**
   * The least lease a job must have left to be handed to a handler; default a third of the lease. A
   * job with less is released, claimable at once, without counting an attempt.
   */
  public QueueSettings minLeaseLeft(Duration minLeaseLeft) {
    runtime.minLeaseLeft(minLeaseLeft);
    return this;
  }

  /** How long a failed job waits before it is claimable again; default 10 s. */
  public QueueSettings retryDelay(Duration retryDelay) {
    runtime.retryDelay(retryDelay);
    return this;
  }

  /**
   * How long the claimer waits after a claim found nothing, on a queue that does not signal new
   * work ({@link JobConsumer#signalsWork()} false), so its polling interval; also how long it waits
   * for free slots before looking again; default 50 ms.
   */
  public QueueSettings idleWait(Duration idleWait) {
    runtime.idleWait(idleWait);
    return this;
  }

  /**
   * On a queue that signals new work ({@link JobConsumer#signalsWork()}, PostgreSQL with
   * notifications on), how long the claimer waits at most after a claim found nothing, between zero
   * and 24 h; default 1 s. An enqueue wakes it within milliseconds, but a job whose lease ran out
   * (a crashed worker's) signals nothing, nor does one notified while the queue's listening
   * connection was down: such a job is claimed at the next poll, up to this late.
   */
  public QueueSettings fallbackPoll(Duration fallbackPoll) {
    runtime.fallbackPoll(fallbackPoll);
    return this;
  }

  /** How long a result waits for others to share its commit statement; default 2 ms. */
  public QueueSettings maxCommitDelay(Duration maxCommitDelay) {
    runtime.maxCommitDelay(maxCommitDelay);
    return this;
  }

  /**
   * Runs this queue's handlers on virtual threads, or not; default the door's {@link
   * FencedWorkers.Builder#virtualThreads(boolean)}.
   */
  public QueueSettings virtualThreads(boolean virtualThreads) {
    runtime.virtualThreads(virtualThreads);
    return this;
  }

  /**
   * The receiver this queue's results are delivered to, with the job's id and epoch, before their
   * commit; default the door's {@link FencedWorkers.Builder#receiver(FencedReceiver)}, if any.
   *
   * @throws NullPointerException if {@code receiver} is null
   */
  public QueueSettings receiver(FencedReceiver receiver) {
    runtime.receiver(Objects.requireNonNull(receiver, "receiver"));
    return this;
  }

  /**
   * Also calls {@code listener} once for every claim's outcome on this queue, after the door's
   * {@link FencedWorkers.Builder#onOutcome}, on a runtime thread; keep it quick. A listener that
   * throws is counted in {@link QueueStats#callbackErrors()} and never stops the queue.
   *
   * @throws NullPointerException if {@code listener} is null
   */
  public QueueSettings onOutcome(Consumer<WorkOutcome> listener) {
    Objects.requireNonNull(listener, "listener");
    runtime.onOutcome(runtime.onOutcome.andThen(listener));
    return this;
  }
}
