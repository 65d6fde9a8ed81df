package dev.fencing.runtime;

import dev.fencing.FencedOutcome;
import dev.fencing.Job;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * How one claimed job ended in the runtime. Every job a runtime claims ends in exactly one outcome,
 * reported once to {@link FencedWorkers.Builder#onOutcome(java.util.function.Consumer)}.
 *
 * @since 0.1
 */
public sealed interface WorkOutcome
    permits WorkOutcome.Completed,
        WorkOutcome.FencedOff,
        WorkOutcome.Failed,
        WorkOutcome.Released,
        WorkOutcome.Abandoned {

  /** The job, as this claim handed it out. */
  Job job();

  /** Where in the flow a refusal came. */
  enum Stage {
    /** A renewal was refused: the lease expired or a newer claim owns the job. */
    HEARTBEAT,
    /** The receiver refused the call: a newer epoch had reached it. Nothing was committed. */
    DELIVER,
    /**
     * The commit was refused (after the receiver, if any, took the call; a newer epoch will
     * supersede it): neither the result nor any outbox message was written.
     */
    COMMIT,
    /** The handler failed, and recording the failure was refused. */
    FAIL,
    /**
     * Giving the job back was refused (the runtime stopping, the handler interrupted, or too little
     * of the lease left to start): the lease was lost already, as the refusal says.
     */
    RELEASE
  }

  /**
   * Delivered (when the runtime has a receiver) and committed, with the handler's outbox messages.
   *
   * @param delivery the receiver's acceptance, or null when the runtime has no receiver
   */
  record Completed(
      Job job, FencedOutcome.@Nullable Accepted delivery, FencedOutcome.Accepted commit)
      implements WorkOutcome {
    public Completed {
      Objects.requireNonNull(job, "job");
      Objects.requireNonNull(commit, "commit");
    }
  }

  /** This claim was fenced off; its work for the job counts for nothing. */
  record FencedOff(Job job, Stage stage, FencedOutcome.Refused refusal) implements WorkOutcome {
    public FencedOff {
      Objects.requireNonNull(job, "job");
      Objects.requireNonNull(stage, "stage");
      Objects.requireNonNull(refusal, "refusal");
    }
  }

  /**
   * The handler threw, the result or a message was not valid for the store, the queue has no outbox
   * for the handler's messages, or the receiver call failed; the failure was recorded and the job
   * is retried until its attempts run out. Nothing of the result was written.
   */
  record Failed(Job job, Throwable error) implements WorkOutcome {
    public Failed {
      Objects.requireNonNull(job, "job");
      Objects.requireNonNull(error, "error");
    }
  }

  /**
   * The job was given back, claimable at once, without counting an attempt: the runtime stopped
   * before it started or before it finished, or it had less than the margin of its lease left.
   */
  record Released(Job job, String reason) implements WorkOutcome {
    public Released {
      Objects.requireNonNull(job, "job");
      Objects.requireNonNull(reason, "reason");
    }
  }

  /**
   * The runtime could not keep the lease or could not reach the store: nothing more was delivered
   * or committed for this claim. The lease runs out and the job is claimed again (unless a commit
   * whose acknowledgement was lost had landed, which {@code error} would then not show).
   *
   * @param error the store's failure, or null when the lease ran out by the worker's own clock
   */
  record Abandoned(Job job, String reason, @Nullable Throwable error) implements WorkOutcome {
    public Abandoned {
      Objects.requireNonNull(job, "job");
      Objects.requireNonNull(reason, "reason");
    }
  }
}
