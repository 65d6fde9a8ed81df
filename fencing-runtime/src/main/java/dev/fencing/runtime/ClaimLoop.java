package dev.fencing.runtime;

import dev.fencing.Job;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Claims in batches, only as many jobs as there are free slots, so that nothing claimed waits long
 * for a thread; waiting claims are renewed by the heartbeat like running ones.
 */
final class ClaimLoop extends Loop {

  private static final Logger LOG = LoggerFactory.getLogger(Pipeline.LOGGER);
  private static final Duration MAX_BACKOFF = Duration.ofSeconds(2);
  private static final long SLICE = TimeUnit.MILLISECONDS.toNanos(100);

  /** The slice of an idle wait while this runtime holds jobs, which may end at any moment. */
  private static final long HOLDING_SLICE = TimeUnit.MILLISECONDS.toNanos(5);

  /** While claims fail, how often the same failure is logged again. */
  private static final long REPEAT_NANOS = TimeUnit.MINUTES.toNanos(1);

  private final Pipeline p;

  /** Claims failed in a row, the last failure's message, and when it was last logged. */
  private long failures;

  private String lastLogged = "";
  private long loggedAt;

  ClaimLoop(Pipeline pipeline) {
    this.p = pipeline;
  }

  @Override
  public void run() {
    Settings s = p.settings;
    int threshold = Math.max(1, Math.min(s.batchSize(), s.capacity() / 2));
    long leaseNanos = s.leaseLength().toNanos();
    Duration backoff = Duration.ofMillis(50);
    while (running()) {
      int want = Math.min(s.batchSize(), p.slots.availablePermits());
      if (want < threshold || !p.slots.tryAcquire(want)) {
        awaitSlots(threshold);
        continue;
      }
      long sent = System.nanoTime();
      List<Job> jobs;
      try {
        jobs = p.queue.claimBatch(s.queueName(), s.owner(), s.leaseLength(), want);
        p.counters.increment(Counters.Count.CLAIM_STATEMENTS);
        backoff = Duration.ofMillis(50);
        p.succeeded();
        recovered(s);
      } catch (RuntimeException e) {
        p.slots.release(want);
        p.counters.increment(Counters.Count.STORE_ERRORS);
        // the backoff spaces the claims' starts, not the gaps between them: a claim that failed
        // after waiting that long already (for a connection of a pool while no primary answers) is
        // sent again at once, so that it waits in the pool, not here, when the primary is back
        long wait = Math.max(0, backoff.toNanos() - (System.nanoTime() - sent));
        failed(s, e, wait);
        if (wait > 0) {
          pause(wait);
        }
        backoff = doubled(backoff, MAX_BACKOFF);
        continue;
      }
      p.slots.release(want - jobs.size());
      p.counters.add(Counters.Count.CLAIMED, jobs.size());
      for (Job job : jobs) {
        p.admit(new InFlight(job, sent, leaseNanos));
      }
      if (jobs.isEmpty()) {
        idle(s);
      }
    }
  }

  /**
   * Logs a failed claim: the first of a run of failures, then the same failure again at most once a
   * minute, a different one at once. A worker whose claims are refused (a schema at a version it
   * may not run on, a database that is down) says so instead of idling without a word.
   */
  private void failed(Settings s, RuntimeException e, long waitNanos) {
    failures++;
    p.claimsFailing = true;
    p.lastFailure = String.valueOf(e);
    String message = String.valueOf(e.getMessage());
    long now = System.nanoTime();
    if (failures == 1 || !message.equals(lastLogged) || now - loggedAt >= REPEAT_NANOS) {
      // the failure as text, not its trace: it repeats while the store stays down
      LOG.warn(
          "claims of queue {} by {} failed {} {}; trying again in {} ms, then at most every {} ms: {}",
          s.queueName(),
          s.owner(),
          failures,
          failures == 1 ? "time" : "times in a row",
          TimeUnit.NANOSECONDS.toMillis(waitNanos),
          MAX_BACKOFF.toMillis(),
          String.valueOf(e));
      lastLogged = message;
      loggedAt = now;
    }
  }

  private void recovered(Settings s) {
    if (failures > 0) {
      p.claimsFailing = false;
      LOG.info(
          "claims of queue {} by {} succeed again after {} failures",
          s.queueName(),
          s.owner(),
          failures);
      failures = 0;
      lastLogged = "";
    }
  }

  /**
   * Waits for work after an empty claim: {@code idleWait} on a queue that does not signal; on one
   * that does, until a signal or {@code fallbackPoll}, in slices so that stop() ends it promptly.
   * While this runtime holds jobs, the wait also ends when one of them ends (its outcome known): a
   * claim the queue's limits emptied (QueueLimits) may find room then, and a job's end signals
   * nothing.
   */
  private void idle(Settings s) {
    long ended = ended();
    // jobs claimed whose outcome is not known yet: handled, or their commit under way
    boolean holding = p.counters.get(Counters.Count.CLAIMED) > ended;
    long slice = holding ? HOLDING_SLICE : SLICE;
    long end =
        System.nanoTime() + (p.queue.signalsWork() ? s.fallbackPoll() : s.idleWait()).toNanos();
    try {
      while (running()) {
        long left = end - System.nanoTime();
        if (left <= 0) {
          return;
        }
        if (p.queue.signalsWork()) {
          if (p.queue.awaitWork(s.queueName(), Duration.ofNanos(Math.min(left, slice)))) {
            return;
          }
        } else {
          pause(Math.min(left, slice));
        }
        if (holding && ended() > ended) {
          return; // one of ours ended: its lease no longer counts
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      stop();
    } catch (RuntimeException e) {
      p.counters.increment(Counters.Count.STORE_ERRORS);
      pause(s.idleWait().toNanos());
    }
  }

  /** The jobs of this runtime whose outcome is known (committed, fenced off, failed, ...). */
  private long ended() {
    Counters c = p.counters;
    return c.get(Counters.Count.COMPLETED)
        + c.get(Counters.Count.FENCED_OFF)
        + c.get(Counters.Count.FAILED)
        + c.get(Counters.Count.RELEASED)
        + c.get(Counters.Count.ABANDONED);
  }

  private void awaitSlots(int threshold) {
    try {
      if (p.slots.tryAcquire(threshold, p.settings.idleWait().toNanos(), TimeUnit.NANOSECONDS)) {
        p.slots.release(threshold);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      stop();
    }
  }
}
