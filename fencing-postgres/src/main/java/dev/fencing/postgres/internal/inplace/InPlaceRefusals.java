package dev.fencing.postgres.internal.inplace;

import static dev.fencing.postgres.internal.jooq.Tables.FENCING_CANCEL;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_JOB;
import static org.jooq.impl.DSL.any;
import static org.jooq.impl.DSL.val;

import dev.fencing.FencedOutcome;
import dev.fencing.JobState;
import dev.fencing.Lease;
import dev.fencing.postgres.internal.Cancels;
import dev.fencing.postgres.internal.Config;
import dev.fencing.postgres.internal.Jdbc;
import dev.fencing.postgres.internal.Refusals;
import dev.fencing.postgres.internal.jooq.tables.FencingCancel;
import jakarta.inject.Inject;
import org.jooq.Condition;
import org.jooq.Record;

/**
 * Names the reason a compare-and-set on owner and epoch matched no row of {@code fencing_job}, and
 * tells a retried write that landed from one that did not.
 */
final class InPlaceRefusals extends Refusals {

  @Inject
  InPlaceRefusals(Jdbc jdbc, Config config) {
    super(jdbc, config, "fencing_job_id_seq");
  }

  /**
   * Explains why a compare-and-set matched no row, from a fresh read. Epochs only go up, so a read
   * later than the write still tells the truth about who won.
   *
   * @throws IllegalArgumentException if the lease names no existing job
   */
  FencedOutcome.Refused refusal(Lease lease) {
    FencingCancel c = FENCING_CANCEL;
    Record row =
        read(
            dsl ->
                dsl.select(
                        FENCING_JOB.STATUS,
                        FENCING_JOB.OWNER,
                        FENCING_JOB.EPOCH,
                        FENCING_JOB.LEASE_EXPIRES_AT,
                        c.FENCE_EPOCH,
                        c.REASON)
                    .from(FENCING_JOB)
                    .leftJoin(c)
                    .on(c.JOB_ID.eq(FENCING_JOB.ID))
                    .where(FENCING_JOB.ID.eq(lease.jobId()))
                    .fetchOne());
    if (row == null) {
      return gone(lease);
    }
    // a cancel names the refusal of every lease it fenced, before who holds the job now
    if (row.get(c.FENCE_EPOCH) != null) {
      FencedOutcome.Cancelled cancelled =
          new Cancels.Mark(row.get(c.FENCE_EPOCH), row.get(c.REASON)).refusal(lease);
      if (cancelled != null) {
        return cancelled;
      }
    }
    JobState state = JobState.fromDbName(row.get(FENCING_JOB.STATUS));
    // a lease ran out without its job ending only while the job runs (a claim with no room for it
    // leaves it running): any other state was written by an end
    return Refusals.classify(
        lease,
        state,
        row.get(FENCING_JOB.OWNER),
        row.get(FENCING_JOB.EPOCH),
        state == JobState.RUNNING ? row.get(FENCING_JOB.LEASE_EXPIRES_AT) : null);
  }

  /** Returns whether this very lease already wrote what {@code sameWriteAgain} describes. */
  boolean isRepeat(Lease lease, Condition sameWriteAgain) {
    return rowOf(
        lease,
        FENCING_JOB
            .EPOCH
            .eq(lease.epoch().value())
            .and(FENCING_JOB.OWNER.eq(lease.owner()))
            .and(sameWriteAgain));
  }

  /**
   * Returns whether the job's row holds {@code mark} in {@code settled_epochs}: this lease's fail
   * (+epoch) or release (-epoch) landed before the job was claimed again.
   */
  boolean wasSettled(Lease lease, long mark) {
    return rowOf(lease, val(mark).eq(any(FENCING_JOB.SETTLED_EPOCHS)));
  }

  /** Whether the lease's job's row meets {@code condition} now. */
  private boolean rowOf(Lease lease, Condition condition) {
    return read(
        dsl -> dsl.fetchExists(FENCING_JOB, FENCING_JOB.ID.eq(lease.jobId()).and(condition)));
  }
}
