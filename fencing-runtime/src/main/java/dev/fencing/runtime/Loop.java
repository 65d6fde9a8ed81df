package dev.fencing.runtime;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * A runtime thread's loop that is stopped by a flag, never by an interrupt (which could cut a
 * statement in flight short and leave its outcome unknown), and whose pauses end at once on stop.
 */
abstract class Loop implements Runnable {

  private final Object wakeUp = new Object();
  private volatile boolean running = true;

  /** Stops after the current step. */
  final void stop() {
    running = false;
    synchronized (wakeUp) {
      wakeUp.notifyAll();
    }
  }

  final boolean running() {
    return running;
  }

  /** Waits {@code nanos}, or less if stopped meanwhile. */
  final void pause(long nanos) {
    synchronized (wakeUp) {
      if (!running) {
        return;
      }
      try {
        TimeUnit.NANOSECONDS.timedWait(wakeUp, Math.max(1, nanos));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        running = false;
      }
    }
  }

  /** Waits up to {@code timeout} for {@code thread} to end, unless it is the calling thread. */
  static void join(Thread thread, Duration timeout) {
    if (thread == Thread.currentThread()) {
      return;
    }
    try {
      thread.join(timeout);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Returns twice {@code backoff}, at most {@code max}. */
  static Duration doubled(Duration backoff, Duration max) {
    Duration twice = backoff.multipliedBy(2);
    return twice.compareTo(max) > 0 ? max : twice;
  }
}
