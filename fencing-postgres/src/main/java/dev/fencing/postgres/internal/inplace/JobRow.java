package dev.fencing.postgres.internal.inplace;

import static dev.fencing.postgres.internal.jooq.Tables.FENCING_JOB;

import dev.fencing.JobSnapshot;
import dev.fencing.JobState;
import dev.fencing.postgres.internal.jooq.tables.records.FencingJobRecord;
import org.jooq.DSLContext;
import org.jspecify.annotations.Nullable;

/**
 * A job's row of {@code fencing_job}, read whole, and the API's snapshot of it: what {@link
 * InPlaceStore#find} returns and what {@link InPlaceAdmin} shows more of.
 */
final class JobRow {

  private JobRow() {}

  /** The row of job {@code jobId}, or null if there is none. */
  static @Nullable FencingJobRecord read(DSLContext dsl, long jobId) {
    return dsl.selectFrom(FENCING_JOB).where(FENCING_JOB.ID.eq(jobId)).fetchOne();
  }

  static JobSnapshot snapshot(FencingJobRecord r) {
    return new JobSnapshot(
        r.getId(),
        r.getQueue(),
        JobState.fromDbName(r.getStatus()),
        r.getOwner(),
        r.getEpoch(),
        r.getAttempts(),
        r.getMaxAttempts(),
        r.getPayload().data(),
        r.getResult() == null ? null : r.getResult().data(),
        r.getLastError(),
        r.getRunAt().toInstant(),
        r.getLeaseExpiresAt() == null ? null : r.getLeaseExpiresAt().toInstant());
  }
}
