package dev.fencing.postgres.internal;

import static dev.fencing.postgres.internal.jooq.Tables.FENCING_CANCEL;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_PARKED;
import static org.jooq.impl.DSL.val;

import dev.fencing.CancelResult;
import dev.fencing.Epoch;
import dev.fencing.FencedOutcome;
import dev.fencing.JobState;
import dev.fencing.Lease;
import dev.fencing.internal.Validate;
import dev.fencing.postgres.internal.jooq.tables.FencingCancel;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import org.jooq.DSLContext;
import org.jooq.Record;
import org.jspecify.annotations.Nullable;

/**
 * The rows of {@code fencing_cancel} that both engines' cancels write and their refusals read. A
 * cancel ends the job as an operator's fail does, in the same transaction as its row here, which
 * keeps what the job was and the fence epoch: the epoch the job's next claim would have taken,
 * above every lease it was ever handed out under. A write of any lease below it is refused as
 * {@link FencedOutcome.Cancelled}.
 */
public final class Cancels {

  private Cancels() {}

  /** What a job's cancel kept: its fence epoch and reason. */
  public record Mark(long fence, @Nullable String reason) {

    /** The refusal of {@code lease} by this cancel, or null if the lease is newer than it. */
    public FencedOutcome.@Nullable Cancelled refusal(Lease lease) {
      return lease.epoch().value() < fence
          ? new FencedOutcome.Cancelled(lease.key(), lease.epoch(), reason)
          : null;
    }
  }

  /**
   * The last error of a job cancelled with {@code reason}, as the job's row keeps it.
   *
   * @throws IllegalArgumentException if {@code reason} is blank
   */
  public static String lastError(@Nullable String reason) {
    return Text.storable(Validate.cancelled(reason), AdminSupport.MAX_REASON_LENGTH);
  }

  /**
   * Writes the cancel of a job that {@code was} pending or running, whose newest epoch is {@code
   * epoch} (0 if never handed out), after its end was written in the same transaction; deletes its
   * parked row, if any.
   *
   * @param leaseEpoch the epoch of the lease the cancel ended, or null if it was pending
   */
  public static CancelResult cancelled(
      DSLContext dsl,
      long jobId,
      String queue,
      JobState was,
      @Nullable Long leaseEpoch,
      long epoch,
      @Nullable String reason) {
    FencingCancel c = FENCING_CANCEL;
    long fence =
        dsl.insertInto(c)
            .set(c.JOB_ID, jobId)
            .set(c.QUEUE, queue)
            .set(c.LEASE_EPOCH, leaseEpoch)
            .set(c.FENCE_EPOCH, Generation.next(val(epoch)))
            .set(c.WAS, was.dbName())
            .set(
                c.REASON, reason == null ? null : Text.storable(reason, Validate.MAX_CANCEL_REASON))
            .returning(c.FENCE_EPOCH)
            .fetchOne(c.FENCE_EPOCH);
    dsl.deleteFrom(FENCING_PARKED).where(FENCING_PARKED.JOB_ID.eq(jobId)).execute();
    return new CancelResult.Cancelled(jobId, was, Epoch.of(fence), false);
  }

  /**
   * The answer to a cancel of a job that ended {@code state}: a repeat of its cancel if it was
   * cancelled, else {@link CancelResult.AlreadyEnded}. Writes nothing.
   */
  public static CancelResult ended(DSLContext dsl, long jobId, JobState state) {
    FencingCancel c = FENCING_CANCEL;
    Record row = dsl.select(c.WAS, c.FENCE_EPOCH).from(c).where(c.JOB_ID.eq(jobId)).fetchOne();
    if (row == null) {
      return new CancelResult.AlreadyEnded(jobId, state);
    }
    return new CancelResult.Cancelled(
        jobId, JobState.fromDbName(row.get(c.WAS)), Epoch.of(row.get(c.FENCE_EPOCH)), true);
  }

  /** The epoch of the lease a cancel of the job ended, or null if none did (or it was pending). */
  public static @Nullable Long cancelledLease(DSLContext dsl, long jobId) {
    FencingCancel c = FENCING_CANCEL;
    return dsl.select(c.LEASE_EPOCH).from(c).where(c.JOB_ID.eq(jobId)).fetchOne(c.LEASE_EPOCH);
  }

  /** Whether the job was cancelled. */
  public static boolean wasCancelled(DSLContext dsl, long jobId) {
    return dsl.fetchExists(FENCING_CANCEL, FENCING_CANCEL.JOB_ID.eq(jobId));
  }

  /** The cancels of those of {@code jobIds} that were cancelled, by job id, in one statement. */
  public static Map<Long, Mark> marks(DSLContext dsl, Collection<Long> jobIds) {
    FencingCancel c = FENCING_CANCEL;
    Map<Long, Mark> marks = new HashMap<>();
    dsl.select(c.JOB_ID, c.FENCE_EPOCH, c.REASON)
        .from(c)
        .where(c.JOB_ID.in(jobIds))
        .forEach(r -> marks.put(r.value1(), new Mark(r.value2(), r.value3())));
    return marks;
  }

  /** Why a cancelled job is not requeued. */
  public static final String REQUEUE_REFUSAL =
      "cancelled jobs are not requeued (receivers may already be fenced at the job's next epoch):"
          + " enqueue a new job";

  /** The refusal of a requeue of a cancelled job. */
  public static String requeueRefusal(long jobId) {
    return "job " + jobId + " was cancelled; " + REQUEUE_REFUSAL;
  }
}
