package dev.fencing.schedule.internal;

import java.util.concurrent.atomic.AtomicLong;

/** A scheduler's counts, read at any time from any thread. */
public final class Counters {
  final AtomicLong enqueued = new AtomicLong();
  final AtomicLong skipped = new AtomicLong();
  final AtomicLong taken = new AtomicLong();
  final AtomicLong superseded = new AtomicLong();
  final AtomicLong conflicts = new AtomicLong();
  final AtomicLong failures = new AtomicLong();

  /** Counts a failed round. */
  public void failed() {
    failures.incrementAndGet();
  }

  /** Returns the counts now: enqueued, skipped, taken, superseded, conflicts, failures. */
  public long[] read() {
    return new long[] {
      enqueued.get(), skipped.get(), taken.get(), superseded.get(), conflicts.get(), failures.get()
    };
  }
}
