package dev.fencing.runtime;

import dev.fencing.Job;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Claims in batches, only as many jobs as there are free slots, so that nothing claimed waits long
 * for a thread; waiting claims are renewed by the heartbeat like running ones.
 */
final class ClaimLoop implements Runnable {

  private static final Duration MAX_BACKOFF = Duration.ofSeconds(2);

  private final Pipeline p;
  private final Object wakeUp = new Object();
  private volatile boolean running = true;

  ClaimLoop(Pipeline pipeline) {
    this.p = pipeline;
  }

  /** Stops after the current claim; never interrupts a statement in flight. */
  void stop() {
    running = false;
    synchronized (wakeUp) {
      wakeUp.notifyAll();
    }
  }

  @Override
  public void run() {
    Settings s = p.settings;
    int threshold = Math.max(1, Math.min(s.batchSize(), s.capacity() / 2));
    long leaseNanos = s.leaseLength().toNanos();
    Duration backoff = Duration.ofMillis(50);
    while (running) {
      int want = Math.min(s.batchSize(), p.slots.availablePermits());
      if (want < threshold || !p.slots.tryAcquire(want)) {
        awaitSlots(threshold);
        continue;
      }
      long sent = System.nanoTime();
      List<Job> jobs;
      try {
        jobs = p.queue.claimBatch(s.queueName(), s.owner(), s.leaseLength(), want);
        p.counters.claimStatements.incrementAndGet();
        backoff = Duration.ofMillis(50);
      } catch (RuntimeException e) {
        p.slots.release(want);
        p.counters.storeErrors.incrementAndGet();
        pause(backoff);
        backoff =
            backoff.multipliedBy(2).compareTo(MAX_BACKOFF) > 0
                ? MAX_BACKOFF
                : backoff.multipliedBy(2);
        continue;
      }
      p.slots.release(want - jobs.size());
      p.counters.claimed.addAndGet(jobs.size());
      for (Job job : jobs) {
        p.admit(new InFlight(job, sent, leaseNanos));
      }
      if (jobs.isEmpty()) {
        pause(s.idleWait());
      }
    }
  }

  private void awaitSlots(int threshold) {
    try {
      if (p.slots.tryAcquire(threshold, p.settings.idleWait().toNanos(), TimeUnit.NANOSECONDS)) {
        p.slots.release(threshold);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      running = false;
    }
  }

  private void pause(Duration duration) {
    synchronized (wakeUp) {
      if (!running) {
        return;
      }
      try {
        wakeUp.wait(Math.max(1, duration.toMillis()));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        running = false;
      }
    }
  }
}
