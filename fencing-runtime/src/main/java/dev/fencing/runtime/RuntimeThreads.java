package dev.fencing.runtime;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The threads of one {@link QueueRuntime} (claimer, heartbeat, handlers, committer, and its
 * maintenance and relay) and the order in which they stop, which keeps a zombie harmless: claiming
 * stops first, jobs not yet started are released, running handlers drain and their results are
 * committed, the rest is cancelled and released, and the relay runs last.
 */
final class RuntimeThreads {

  private final Pipeline pipeline;
  private final SidecarThreads sidecars;
  private final ClaimLoop claimLoop;
  private final Heartbeat heartbeat;
  private final CommitLoop commitLoop;
  private final List<HandlerLoop> handlerLoops = new ArrayList<>();
  private final List<Thread> handlerThreads = new ArrayList<>();
  private final List<Thread> threads = new ArrayList<>();
  private final Thread claimer;
  private final Thread committer;
  private final AtomicBoolean stopped = new AtomicBoolean();
  private volatile boolean drained;

  RuntimeThreads(Pipeline pipeline, SidecarThreads sidecars) {
    this.pipeline = pipeline;
    this.sidecars = sidecars;
    String owner = pipeline.settings.owner();
    this.claimLoop = new ClaimLoop(pipeline);
    this.heartbeat = new Heartbeat(pipeline);
    this.commitLoop = new CommitLoop(pipeline);
    this.claimer = thread("fencing-claimer-" + owner, claimLoop);
    thread("fencing-heartbeat-" + owner, heartbeat);
    this.committer = thread("fencing-committer-" + owner, commitLoop);
    for (int i = 0; i < pipeline.settings.concurrency(); i++) {
      HandlerLoop loop = new HandlerLoop(pipeline);
      handlerLoops.add(loop);
      String name = "fencing-handler-" + owner + "-" + i;
      Thread t =
          pipeline.settings.virtualThreads()
              ? Thread.ofVirtual().name(name).unstarted(loop)
              : Thread.ofPlatform().daemon().name(name).unstarted(loop);
      threads.add(t);
      handlerThreads.add(t);
    }
  }

  private Thread thread(String name, Runnable loop) {
    Thread t = Thread.ofPlatform().daemon().name(name).unstarted(loop);
    threads.add(t);
    return t;
  }

  void start() {
    sidecars.start();
    for (Thread t : threads) {
      t.start();
    }
  }

  /** As {@link QueueRuntime#shutdown(Duration)} says; {@code drainTimeout} is checked already. */
  boolean shutdown(Duration drainTimeout) {
    if (!stopped.compareAndSet(false, true)) {
      Loop.join(committer, Duration.ofMinutes(1));
      sidecars.joinRelay(Duration.ofMinutes(1));
      return drained;
    }
    long deadline = System.nanoTime() + drainTimeout.toNanos();
    pipeline.stopping = true;
    sidecars.stopMaintenance();
    claimLoop.stop();
    Loop.join(claimer, Duration.ofSeconds(30));
    List<InFlight> unstarted = new ArrayList<>();
    pipeline.ready.drainTo(unstarted);
    for (InFlight claim : unstarted) {
      pipeline.release(claim, "the runtime stopped before the job started");
    }
    awaitEmpty(deadline);
    drained = pipeline.inFlight.isEmpty();
    if (!drained) {
      cancelRemaining("the runtime stopped and its drain timeout of " + drainTimeout + " passed");
      awaitEmpty(System.nanoTime() + Duration.ofSeconds(1).toNanos());
      commitLoop.giveUp();
      for (InFlight claim : List.copyOf(pipeline.inFlight.values())) {
        if (claim.stage() != InFlight.Stage.COMMITTING) {
          pipeline.release(claim, claim.reason().orElse("the runtime stopped"));
        }
      }
    }
    for (HandlerLoop loop : handlerLoops) {
      loop.stop();
    }
    // wakes the idle ones; a handler still running was cancelled and interrupted already
    for (Thread t : handlerThreads) {
      t.interrupt();
    }
    commitLoop.stop();
    Loop.join(committer, Duration.ofSeconds(30));
    // after the commits: its last round sends what they wrote
    sidecars.stopRelay();
    heartbeat.stop();
    sidecars.join(Duration.ofSeconds(30));
    long end = System.nanoTime() + Duration.ofSeconds(1).toNanos();
    for (Thread t : threads) {
      Loop.join(t, Duration.ofNanos(Math.max(1, end - System.nanoTime())));
    }
    // a statement that never came back: its claim still ends in an outcome, and only one
    for (InFlight claim : List.copyOf(pipeline.inFlight.values())) {
      pipeline.resolve(
          claim,
          new WorkOutcome.Abandoned(
              claim.job, "the runtime stopped while a statement for it had not come back", null));
    }
    return drained;
  }

  private void cancelRemaining(String reason) {
    for (InFlight claim : pipeline.inFlight.values()) {
      if (claim.stage() != InFlight.Stage.COMMITTING) {
        claim.cancel(reason, null, true);
      }
    }
  }

  private void awaitEmpty(long deadlineNanos) {
    while (!pipeline.inFlight.isEmpty() && System.nanoTime() - deadlineNanos < 0) {
      try {
        Thread.sleep(5);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }
}
