package dev.fencing;

import dev.fencing.internal.Validate;
import java.util.Objects;
import java.util.OptionalInt;

/**
 * A queue's limits, kept by the store so that every process claiming from the queue obeys the same
 * ones (see {@link FencedQueue#setLimits}). Immutable; start from {@link #NONE} or {@link
 * #maxRunning(int)}.
 *
 * <p><b>Running limit.</b> At most {@code maxRunning} jobs of the queue hold a <em>valid</em> lease
 * at any moment, across every process: a lease counts while it has not run out and its job still
 * runs under it. A worker that stalls past its lease (a zombie) stops counting when its lease runs
 * out, so a healthy worker may take its place, and the zombie's late writes are refused as always.
 * The limit holds whatever stalls, dies or fails over, because claims count and renewals extend
 * leases under one lock per queue in the store; it is never counted in the worker.
 */
public final class QueueLimits {

  /** The largest running limit. */
  public static final int MAX_RUNNING = 1_000_000;

  /** No limit. */
  public static final QueueLimits NONE = new QueueLimits(0);

  /** 0 = none. */
  private final int maxRunning;

  private QueueLimits(int maxRunning) {
    this.maxRunning = maxRunning;
  }

  /**
   * At most {@code maxRunning} jobs of the queue running under valid leases.
   *
   * @throws IllegalArgumentException if {@code maxRunning} is outside 1 .. {@value #MAX_RUNNING}
   */
  public static QueueLimits maxRunning(int maxRunning) {
    return NONE.withMaxRunning(maxRunning);
  }

  /**
   * A copy with the running limit {@code maxRunning}.
   *
   * @throws IllegalArgumentException as {@link #maxRunning(int)}
   */
  public QueueLimits withMaxRunning(int maxRunning) {
    return new QueueLimits(Validate.between("maxRunning", maxRunning, 1, MAX_RUNNING));
  }

  /** A copy without a running limit. */
  public QueueLimits withoutMaxRunning() {
    return new QueueLimits(0);
  }

  /** The running limit, if one is set. */
  public OptionalInt runningLimit() {
    return maxRunning == 0 ? OptionalInt.empty() : OptionalInt.of(maxRunning);
  }

  /** Whether no limit is set. */
  public boolean isNone() {
    return maxRunning == 0;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof QueueLimits other && maxRunning == other.maxRunning;
  }

  @Override
  public int hashCode() {
    return Objects.hash(maxRunning);
  }

  @Override
  public String toString() {
    return isNone() ? "QueueLimits[none]" : "QueueLimits[maxRunning=" + maxRunning + "]";
  }
}
