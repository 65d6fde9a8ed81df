package dev.fencing.postgres.internal.inplace;

import static dev.fencing.postgres.internal.jooq.Tables.FENCING_JOB;
import static org.jooq.impl.DSL.any;
import static org.jooq.impl.DSL.val;

import dev.fencing.FencedOutcome;
import dev.fencing.JobState;
import dev.fencing.Lease;
import dev.fencing.postgres.internal.Config;
import dev.fencing.postgres.internal.Jdbc;
import dev.fencing.postgres.internal.Refusals;
import jakarta.inject.Inject;
import org.jooq.Condition;
import org.jooq.Record;

/**
 * Names the reason a compare-and-set on owner and epoch matched no row of {@code fencing_job}, and
 * tells a retried write that landed from one that did not.
 */
final class InPlaceRefusals {

  private final Jdbc jdbc;
  private final Config config;

  @Inject
  InPlaceRefusals(Jdbc jdbc, Config config) {
    this.jdbc = jdbc;
    this.config = config;
  }

  /**
   * Explains why a compare-and-set matched no row, from a fresh read. Epochs only go up, so a read
   * later than the write still tells the truth about who won.
   *
   * @throws IllegalArgumentException if the lease names no existing job
   */
  FencedOutcome.Refused refusal(Lease lease) {
    Record row =
        jdbc.guarded(
            () ->
                jdbc.run(
                    c ->
                        jdbc.on(c)
                            .select(
                                FENCING_JOB.STATUS,
                                FENCING_JOB.OWNER,
                                FENCING_JOB.EPOCH,
                                FENCING_JOB.LEASE_EXPIRES_AT)
                            .from(FENCING_JOB)
                            .where(FENCING_JOB.ID.eq(lease.jobId()))
                            .fetchOne()));
    if (row == null) {
      if (wasIssued(lease.jobId())) {
        // a claim issued the lease, and the row is gone: retention or a purge removed it
        return new FencedOutcome.Removed(lease.key(), lease.epoch());
      }
      throw new IllegalArgumentException(
          "jobId must name an existing job, but was " + lease.jobId() + " (unknown)");
    }
    return Refusals.classify(
        lease,
        JobState.fromDbName(row.get(FENCING_JOB.STATUS)),
        row.get(FENCING_JOB.OWNER),
        row.get(FENCING_JOB.EPOCH),
        row.get(FENCING_JOB.LEASE_EXPIRES_AT));
  }

  /**
   * Returns whether the id sequence of the job table ever handed out {@code jobId}: ids are never
   * reused, so an id at most its last value named a job that existed once.
   */
  private boolean wasIssued(long jobId) {
    return Refusals.wasIssued(jdbc, config, "fencing_job_id_seq", jobId);
  }

  /** Returns whether this very lease already wrote what {@code sameWriteAgain} describes. */
  boolean isRepeat(Lease lease, Condition sameWriteAgain) {
    return jdbc.guarded(
        () ->
            jdbc.run(
                c ->
                    jdbc.on(c)
                        .fetchExists(
                            FENCING_JOB,
                            FENCING_JOB
                                .ID
                                .eq(lease.jobId())
                                .and(FENCING_JOB.EPOCH.eq(lease.epoch().value()))
                                .and(FENCING_JOB.OWNER.eq(lease.owner()))
                                .and(sameWriteAgain))));
  }

  /**
   * Returns whether the job's row holds {@code mark} in {@code settled_epochs}: this lease's fail
   * (+epoch) or release (-epoch) landed before the job was claimed again.
   */
  boolean wasSettled(Lease lease, long mark) {
    return jdbc.guarded(
        () ->
            jdbc.run(
                c ->
                    jdbc.on(c)
                        .fetchExists(
                            FENCING_JOB,
                            FENCING_JOB
                                .ID
                                .eq(lease.jobId())
                                .and(val(mark).eq(any(FENCING_JOB.SETTLED_EPOCHS))))));
  }
}
