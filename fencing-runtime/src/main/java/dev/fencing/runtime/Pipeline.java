package dev.fencing.runtime;

import dev.fencing.FencedOffException;
import dev.fencing.FencedOutcome;
import dev.fencing.FencedReceiver;
import dev.fencing.JobConsumer;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the runtime's threads share: the claims in flight, the slots that bound them, the hand-offs
 * between stages, and the one place a claim's outcome is reported.
 */
final class Pipeline {

  /** The logger the runtime's warnings go to: named after the class a user starts. */
  static final String LOGGER = "dev.fencing.runtime.FencedWorkers";

  private static final Logger LOG = LoggerFactory.getLogger(LOGGER);

  /**
   * A handler's result, delivered (when there is a receiver) and waiting for the batched commit.
   *
   * @param delivery the receiver's acceptance, or null without a receiver
   */
  record Result(InFlight claim, HandlerResult work, FencedOutcome.@Nullable Accepted delivery) {}

  final Settings settings;
  final JobConsumer queue;
  final @Nullable FencedReceiver receiver;
  final OutboxHandler handler;
  final Counters counters = new Counters();
  final ConcurrentHashMap<InFlight.Key, InFlight> inFlight = new ConcurrentHashMap<>();
  final Semaphore slots;

  /**
   * Room for results waiting for, or in, a commit. A result hands its slot back when it enters this
   * room, so the next claim goes out while the last results are still being committed; when the
   * store commits slowly the room fills, handler threads wait to hand over, and claiming stops.
   */
  final Semaphore commitRoom;

  final LinkedBlockingQueue<InFlight> ready = new LinkedBlockingQueue<>();
  final LinkedBlockingQueue<Result> results = new LinkedBlockingQueue<>();
  private final Consumer<WorkOutcome> listener;

  /** Set when shutdown begins: nothing new is claimed or started. */
  volatile boolean stopping;

  /**
   * For {@link QueueRuntime#health()}: when a statement of this runtime last succeeded, when a
   * renewal last failed, whether the latest claim failed, and the latest failure's text.
   */
  private volatile long succeededAt = System.nanoTime();

  private volatile long renewalFailedAt;
  private volatile boolean renewalFailed;
  volatile boolean claimsFailing;
  volatile @Nullable String lastFailure;

  /** A claim, commit or renewal statement came back. */
  void succeeded() {
    succeededAt = System.nanoTime();
  }

  /** A renewal statement failed (after the queue's retries). */
  void renewalFailed(RuntimeException e) {
    renewalFailedAt = System.nanoTime();
    renewalFailed = true;
    lastFailure = String.valueOf(e);
  }

  /** Whether the latest renewal failed and no statement succeeded since. */
  boolean renewalsFailing() {
    return renewalFailed && renewalFailedAt - succeededAt > 0;
  }

  Pipeline(
      Settings settings,
      JobConsumer queue,
      @Nullable FencedReceiver receiver,
      OutboxHandler handler,
      Consumer<WorkOutcome> listener) {
    this.settings = settings;
    this.queue = queue;
    this.receiver = receiver;
    this.handler = handler;
    this.listener = listener;
    this.slots = new Semaphore(settings.capacity());
    this.commitRoom = new Semaphore(commitRoom(settings));
  }

  /**
   * How many results may wait for, or be in, a commit: two batches, and never fewer than the slots.
   */
  static int commitRoom(Settings settings) {
    return Math.max(2 * settings.batchSize(), settings.capacity());
  }

  /**
   * Hands a handled claim's result to the committer and frees its slot; waits while the commit room
   * is full.
   */
  void toCommit(Result result) {
    commitRoom.acquireUninterruptibly();
    results.add(result);
    freeSlot(result.claim());
  }

  /**
   * Frees a claim's slot once, whichever comes first: its hand-over to the committer or its end.
   */
  private void freeSlot(InFlight claim) {
    if (claim.freeSlot()) {
      slots.release();
    }
  }

  /** Takes in a claim whose slot the claimer already holds. */
  void admit(InFlight claim) {
    inFlight.put(InFlight.Key.of(claim.job.lease()), claim);
    ready.add(claim);
  }

  /** Reports a claim's outcome, once: frees its slot and tells the listener. */
  void resolve(InFlight claim, WorkOutcome outcome) {
    if (!claim.resolve()) {
      return;
    }
    inFlight.remove(InFlight.Key.of(claim.job.lease()), claim);
    freeSlot(claim);
    counters.count(outcome);
    try {
      listener.accept(outcome);
    } catch (Throwable t) {
      // a listener that throws (even an Error) must not take a runtime thread down with it
      counters.increment(Counters.Count.CALLBACK_ERRORS);
      LOG.warn("onOutcome listener threw; the runtime carries on", t);
    }
  }

  /** Gives a claim back, claimable at once and without counting an attempt. */
  void release(InFlight claim, String reason) {
    if (claim.isResolved()) {
      return;
    }
    try {
      queue.release(claim.lease());
      resolve(claim, new WorkOutcome.Released(claim.job, reason));
    } catch (FencedOffException e) {
      resolve(claim, new WorkOutcome.FencedOff(claim.job, WorkOutcome.Stage.RELEASE, e.refusal()));
    } catch (RuntimeException e) {
      counters.increment(Counters.Count.STORE_ERRORS);
      resolve(claim, new WorkOutcome.Abandoned(claim.job, "could not release: " + reason, e));
    }
  }

  /**
   * Records a failure of the handler or the receiver call; the job is retried after a delay, but a
   * payload that does not decode ends it failed at once (no attempt could decode it).
   */
  void fail(InFlight claim, Throwable error) {
    try {
      if (error instanceof TypedHandlers.UndecodablePayload undecodable) {
        queue.failFinally(
            claim.lease(), "the payload does not decode: " + undecodable.getMessage());
      } else {
        queue.fail(claim.lease(), String.valueOf(error), settings.retryDelay());
      }
      resolve(claim, new WorkOutcome.Failed(claim.job, error));
    } catch (FencedOffException e) {
      resolve(claim, new WorkOutcome.FencedOff(claim.job, WorkOutcome.Stage.FAIL, e.refusal()));
    } catch (RuntimeException e) {
      counters.increment(Counters.Count.STORE_ERRORS);
      e.addSuppressed(error);
      resolve(claim, new WorkOutcome.Abandoned(claim.job, "could not record the failure", e));
    }
  }

  /** Ends a cancelled claim: released if the runtime stopped, else fenced off or abandoned. */
  void resolveCancelled(InFlight claim) {
    String reason = claim.reason().orElse("cancelled");
    if (claim.cancelledForShutdown()) {
      release(claim, reason);
    } else if (claim.refusal() != null) {
      resolve(
          claim,
          new WorkOutcome.FencedOff(claim.job, WorkOutcome.Stage.HEARTBEAT, claim.refusal()));
    } else {
      resolve(claim, new WorkOutcome.Abandoned(claim.job, reason, null));
    }
  }
}
