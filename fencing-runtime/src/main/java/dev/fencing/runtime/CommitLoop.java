package dev.fencing.runtime;

import dev.fencing.CommitOutcome;
import dev.fencing.FencedOutcome;
import dev.fencing.FencedQueue;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Commits delivered results in batches, one compare-and-set statement per batch, with the outbox
 * messages of each result written in that statement's transaction. When the store cannot be reached
 * it tries again with the same leases and results (a commit whose acknowledgement was lost comes
 * back as a repeat), for as long as the leases hold.
 */
final class CommitLoop implements Runnable {

  private static final Duration MAX_BACKOFF = Duration.ofSeconds(1);

  private final Pipeline p;
  private volatile boolean running = true;
  private volatile boolean giveUp;

  CommitLoop(Pipeline pipeline) {
    this.p = pipeline;
  }

  /** Stops once every queued result has been committed. */
  void stop() {
    running = false;
  }

  /** Stops retrying a batch the store does not take; its claims end abandoned. */
  void giveUp() {
    giveUp = true;
  }

  @Override
  public void run() {
    List<Pipeline.Result> batch = new ArrayList<>(p.settings.batchSize());
    while (running || !p.results.isEmpty()) {
      try {
        Pipeline.Result first = p.results.poll(10, TimeUnit.MILLISECONDS);
        if (first == null) {
          continue;
        }
        batch.add(first);
        long deadline = System.nanoTime() + p.settings.maxCommitDelay().toNanos();
        while (batch.size() < p.settings.batchSize()) {
          Pipeline.Result more = p.results.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
          if (more == null) {
            break;
          }
          batch.add(more);
        }
      } catch (InterruptedException e) {
        // this thread stops only when told to; whatever was taken is still committed below
      }
      try {
        commit(batch);
      } catch (Throwable t) {
        for (Pipeline.Result r : batch) {
          p.resolve(r.claim(), new WorkOutcome.Abandoned(r.claim().job, "the runtime failed", t));
        }
      } finally {
        p.commitRoom.release(batch.size());
      }
      batch.clear();
    }
  }

  private void commit(List<Pipeline.Result> batch) {
    List<Pipeline.Result> live = new ArrayList<>(batch.size());
    long now = System.nanoTime();
    for (Pipeline.Result r : batch) {
      if (r.claim().nanosLeft(now) <= 0) {
        // after a stall of this whole process the watchdog may not have run yet
        r.claim().cancel(Heartbeat.RAN_OUT, null, false);
      }
      if (r.claim().isCancelled()) {
        p.resolveCancelled(r.claim());
      } else {
        live.add(r);
      }
    }
    Duration backoff = Duration.ofMillis(20);
    while (!live.isEmpty()) {
      List<FencedQueue.Completion> completions = new ArrayList<>(live.size());
      for (Pipeline.Result r : live) {
        completions.add(
            new FencedQueue.Completion(r.claim().lease(), r.work().result(), r.work().messages()));
      }
      List<CommitOutcome> outcomes;
      try {
        outcomes = p.queue.completeAll(completions);
        p.counters.increment(Counters.Count.COMMIT_STATEMENTS);
        p.succeeded();
      } catch (RuntimeException e) {
        if (e instanceof UnsupportedOperationException && failMessages(live, e)) {
          continue; // the rest commit at once
        }
        p.counters.increment(Counters.Count.STORE_ERRORS);
        long failedAt = System.nanoTime();
        live.removeIf(
            r -> {
              if (giveUp || r.claim().isCancelled() || r.claim().nanosLeft(failedAt) <= 0) {
                p.resolve(
                    r.claim(),
                    new WorkOutcome.Abandoned(
                        r.claim().job, "could not commit before the lease ran out", e));
                return true;
              }
              return false;
            });
        sleep(backoff);
        backoff = Loop.doubled(backoff, MAX_BACKOFF);
        continue;
      }
      for (int i = 0; i < live.size(); i++) {
        report(live.get(i), outcomes.get(i));
      }
      return;
    }
  }

  /**
   * A backend without an outbox refuses messages, and no retry changes that: the results that carry
   * messages fail (their jobs are retried until their attempts run out), nothing of them written.
   *
   * @return whether any result carried messages
   */
  private boolean failMessages(List<Pipeline.Result> live, RuntimeException e) {
    return live.removeIf(
        r -> {
          if (r.work().messages().isEmpty()) {
            return false;
          }
          p.fail(r.claim(), e);
          return true;
        });
  }

  private void report(Pipeline.Result r, CommitOutcome outcome) {
    InFlight claim = r.claim();
    switch (outcome) {
      case FencedOutcome.Accepted a ->
          p.resolve(claim, new WorkOutcome.Completed(claim.job, r.delivery(), a));
      case FencedOutcome.Refused refused ->
          p.resolve(claim, new WorkOutcome.FencedOff(claim.job, WorkOutcome.Stage.COMMIT, refused));
      case CommitOutcome.Invalid invalid -> p.fail(claim, invalid.error());
    }
  }

  private static void sleep(Duration duration) {
    try {
      Thread.sleep(duration);
    } catch (InterruptedException e) {
      // keep going: the commit loop ends only when stopped
    }
  }
}
