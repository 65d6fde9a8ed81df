package dev.fencing.schedule.internal;

import java.util.concurrent.atomic.AtomicLongArray;

/** A scheduler's counts, read at any time from any thread. */
public final class Counters {

  /** What a scheduler counts, in the order {@link #read()} returns the counts. */
  enum Count {
    ENQUEUED,
    SKIPPED,
    TAKEN,
    SUPERSEDED,
    CONFLICTS,
    FAILURES
  }

  private final AtomicLongArray counts = new AtomicLongArray(Count.values().length);

  /** Adds {@code n} to {@code count}. */
  void add(Count count, long n) {
    counts.addAndGet(count.ordinal(), n);
  }

  /** Counts a failed round. */
  public void failed() {
    add(Count.FAILURES, 1);
  }

  /** Returns the counts now: enqueued, skipped, taken, superseded, conflicts, failures. */
  public long[] read() {
    long[] now = new long[counts.length()];
    for (int i = 0; i < now.length; i++) {
      now[i] = counts.get(i);
    }
    return now;
  }
}
