package dev.fencing.runtime;

import dev.fencing.FencedOutcome;
import java.util.concurrent.TimeUnit;

/**
 * One handler thread: takes a claim, runs the handler, delivers (when there is a receiver), and
 * passes it to the committer.
 */
final class HandlerLoop implements Runnable {

  private final Pipeline p;
  private volatile boolean running = true;

  HandlerLoop(Pipeline pipeline) {
    this.p = pipeline;
  }

  void stop() {
    running = false;
  }

  @Override
  public void run() {
    while (running || !p.ready.isEmpty()) {
      InFlight claim;
      try {
        // Long: an idle thread that wakes only to look costs a context switch, and with 128
        // threads on 2 cores these wake-ups took a fifth of the runtime's CPU. The runtime
        // interrupts these threads after stop(), which ends the wait at once.
        claim = p.ready.poll(1, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        continue; // a cancellation aimed at the last job, or stop(); the loop checks which
      }
      if (claim == null) {
        continue;
      }
      try {
        handle(claim);
      } catch (Throwable t) {
        p.resolve(claim, new WorkOutcome.Abandoned(claim.job, "the runtime failed", t));
      }
      // an interrupt that cancelled the job just finished must not hit the next one
      Thread.interrupted();
    }
  }

  private void handle(InFlight claim) {
    if (claim.isCancelled()) {
      p.resolveCancelled(claim);
      return;
    }
    if (p.stopping) {
      p.release(claim, "the runtime stopped before the job started");
      return;
    }
    long left = claim.nanosLeft(System.nanoTime());
    if (left < p.settings.minLeaseLeft().toNanos()) {
      p.release(
          claim,
          "only "
              + TimeUnit.NANOSECONDS.toMillis(Math.max(0, left))
              + " ms of its lease were left, less than minLeaseLeft "
              + p.settings.minLeaseLeft());
      return;
    }
    if (!claim.startHandling(Thread.currentThread())) {
      claim.stopHandling();
      p.resolveCancelled(claim);
      return;
    }
    HandlerResult result = null;
    Throwable error = null;
    try {
      result = p.handler.handle(claim.job, claim);
    } catch (Throwable t) {
      error = t;
    } finally {
      claim.stopHandling();
    }
    boolean interrupted = Thread.interrupted();
    if (claim.isCancelled()) {
      p.resolveCancelled(claim);
    } else if (interrupted || error instanceof InterruptedException) {
      // nobody here cancelled it: give the job back rather than burn an attempt on it
      p.release(claim, "the handler was interrupted");
    } else if (error != null) {
      p.fail(claim, error);
    } else if (result == null) {
      p.fail(
          claim,
          new IllegalArgumentException("the handler must return a result, but returned null"));
    } else if (claim.nanosLeft(System.nanoTime()) <= 0) {
      claim.cancel(Heartbeat.RAN_OUT, null, false);
      p.resolveCancelled(claim);
    } else {
      deliver(claim, result);
    }
  }

  private void deliver(InFlight claim, HandlerResult result) {
    if (p.receiver == null) {
      claim.stage(InFlight.Stage.COMMITTING);
      p.toCommit(new Pipeline.Result(claim, result, null));
      return;
    }
    FencedOutcome delivery;
    try {
      delivery = p.receiver.deliver(claim.job.lease().key(), claim.job.epoch(), result.result());
    } catch (RuntimeException e) {
      if (claim.isCancelled()) {
        p.resolveCancelled(claim);
      } else {
        p.fail(claim, e);
      }
      return;
    }
    switch (delivery) {
      case FencedOutcome.Refused refused ->
          p.resolve(
              claim, new WorkOutcome.FencedOff(claim.job, WorkOutcome.Stage.DELIVER, refused));
      case FencedOutcome.Accepted accepted -> {
        claim.stage(InFlight.Stage.COMMITTING);
        p.toCommit(new Pipeline.Result(claim, result, accepted));
      }
    }
  }
}
