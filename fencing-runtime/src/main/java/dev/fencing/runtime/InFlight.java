package dev.fencing.runtime;

import dev.fencing.FencedOutcome;
import dev.fencing.Job;
import dev.fencing.Lease;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;

/**
 * One claim from the moment it was made until its outcome: its newest lease, the local deadline
 * before which the lease certainly still holds, and its cancellation.
 */
final class InFlight implements Cancellation {

  /** Where a claim is; the thread that holds it in that stage resolves it. */
  enum Stage {
    WAITING,
    HANDLING,
    COMMITTING
  }

  final Job job;
  private volatile Lease lease;
  private volatile long deadlineNanos;
  private volatile Stage stage = Stage.WAITING;
  private volatile @Nullable String cancelReason;
  private volatile FencedOutcome.@Nullable Refused refusal;
  private volatile boolean shutdown;
  private @Nullable Thread handlerThread;
  private final AtomicBoolean resolved = new AtomicBoolean();
  private final AtomicBoolean slotFreed = new AtomicBoolean();

  /**
   * @param sentNanos {@link System#nanoTime()} before the claim was sent: the database set the
   *     lease after that, so it holds at least until {@code sentNanos + leaseLength}
   */
  InFlight(Job job, long sentNanos, long leaseNanos) {
    this.job = job;
    this.lease = job.lease();
    this.deadlineNanos = sentNanos + leaseNanos;
  }

  Lease lease() {
    return lease;
  }

  /** Records a renewal that was sent at {@code sentNanos}. */
  void renewed(Lease renewed, long sentNanos, long leaseNanos) {
    this.lease = renewed;
    this.deadlineNanos = Math.max(deadlineNanos, sentNanos + leaseNanos);
  }

  long nanosLeft(long now) {
    return deadlineNanos - now;
  }

  Stage stage() {
    return stage;
  }

  void stage(Stage stage) {
    this.stage = stage;
  }

  /** Registers the thread to interrupt on cancellation; returns false if already cancelled. */
  synchronized boolean startHandling(Thread thread) {
    stage = Stage.HANDLING;
    handlerThread = thread;
    return cancelReason == null;
  }

  /** Unregisters the handler thread, so that a later cancellation interrupts nothing. */
  synchronized void stopHandling() {
    handlerThread = null;
  }

  /**
   * Cancels the work and interrupts its handler thread, once.
   *
   * @param shutdown whether the runtime is stopping (the job is then released, not abandoned)
   * @return whether this call cancelled it
   */
  synchronized boolean cancel(
      String reason, FencedOutcome.@Nullable Refused refusal, boolean shutdown) {
    if (cancelReason != null) {
      return false;
    }
    this.refusal = refusal;
    this.shutdown = shutdown;
    this.cancelReason = reason;
    if (handlerThread != null) {
      handlerThread.interrupt();
    }
    return true;
  }

  FencedOutcome.@Nullable Refused refusal() {
    return refusal;
  }

  boolean cancelledForShutdown() {
    return shutdown;
  }

  /** Returns true exactly once: to the caller that reports this claim's outcome. */
  boolean resolve() {
    return resolved.compareAndSet(false, true);
  }

  /** Marks this claim's slot free; true only the first time. */
  boolean freeSlot() {
    return slotFreed.compareAndSet(false, true);
  }

  boolean isResolved() {
    return resolved.get();
  }

  @Override
  public boolean isCancelled() {
    return cancelReason != null;
  }

  @Override
  public Optional<String> reason() {
    return Optional.ofNullable(cancelReason);
  }

  /** The key of a claim: a job and the epoch it was claimed at. */
  record Key(long jobId, long epoch) {
    static Key of(Lease lease) {
      return new Key(lease.jobId(), lease.epoch().value());
    }
  }
}
