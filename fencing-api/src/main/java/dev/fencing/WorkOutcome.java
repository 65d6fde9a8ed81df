package dev.fencing;

/** How one {@link FencedWorker} run ended. */
public sealed interface WorkOutcome
    permits WorkOutcome.Idle, WorkOutcome.Completed, WorkOutcome.FencedOff, WorkOutcome.Failed {

  /** Where in the flow a refusal came. */
  enum Stage {
    /** The receiver refused the call: a newer epoch had reached it. Nothing was committed. */
    DELIVER,
    /** The receiver took the call, but the commit was refused; a newer epoch will supersede it. */
    COMMIT,
    /** The handler failed, and recording the failure was refused. */
    FAIL
  }

  /** No job was claimable. */
  record Idle() implements WorkOutcome {}

  /** Delivered and committed. */
  record Completed(Job job, FencedOutcome.Accepted delivery, FencedOutcome.Accepted commit)
      implements WorkOutcome {}

  /** This worker was fenced off; its work for the job counts for nothing. */
  record FencedOff(Job job, Stage stage, FencedOutcome.Refused refusal) implements WorkOutcome {}

  /**
   * The handler or the receiver call failed; the failure was recorded and the job will be retried.
   */
  record Failed(Job job, Exception error) implements WorkOutcome {}
}
