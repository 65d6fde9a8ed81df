package dev.fencing;

import java.util.Objects;

/**
 * What {@link FencedQueue#cancel(long, String)} found and did: the job was {@link Cancelled}, had
 * {@link AlreadyEnded} before, or was {@link NotFound}.
 *
 * @since 0.1
 */
public sealed interface CancelResult
    permits CancelResult.Cancelled, CancelResult.AlreadyEnded, CancelResult.NotFound {

  /** The job asked for. */
  long jobId();

  /**
   * The job is cancelled: it ends {@link JobState#FAILED} and is never handed out again. If it was
   * running, its holder's lease is ended: every later renewal or commit of that lease is refused
   * with {@link FencedOutcome.Cancelled}.
   *
   * @param was what the job was when it was cancelled: {@link JobState#PENDING} or {@link
   *     JobState#RUNNING}
   * @param fence the epoch that fences every lease the job was ever handed out under: a receiver
   *     raised to it (see {@link FencedReceiver#fence}) refuses the holder's late deliveries
   * @param repeat true when the job had been cancelled before (for example a retry after a lost
   *     acknowledgement); nothing was written this time
   */
  record Cancelled(long jobId, JobState was, Epoch fence, boolean repeat) implements CancelResult {
    public Cancelled {
      Objects.requireNonNull(was, "was");
      Objects.requireNonNull(fence, "fence");
    }
  }

  /**
   * The job had ended before the cancel (completed, or failed), and nothing was written.
   *
   * @param state the state it ended in
   */
  record AlreadyEnded(long jobId, JobState state) implements CancelResult {
    public AlreadyEnded {
      Objects.requireNonNull(state, "state");
    }
  }

  /** No job has that id (never enqueued, or removed by retention). Nothing was written. */
  record NotFound(long jobId) implements CancelResult {}
}
