package dev.fencing.postgres.internal.inplace;

import static dev.fencing.postgres.internal.jooq.Tables.FENCING_JOB;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_PARKED;

import dev.fencing.JobSnapshot;
import dev.fencing.JobState;
import dev.fencing.postgres.internal.OptionRows;
import dev.fencing.postgres.internal.jooq.tables.FencingParked;
import dev.fencing.postgres.internal.jooq.tables.records.FencingJobRecord;
import java.time.OffsetDateTime;
import org.jooq.DSLContext;
import org.jspecify.annotations.Nullable;

/**
 * A job's row of {@code fencing_job}, read whole, and the API's snapshot of it: what {@link
 * InPlaceStore#find} returns and what {@link InPlaceAdmin} shows more of.
 */
final class InPlaceRow {

  private InPlaceRow() {}

  /**
   * The row of job {@code jobId}, or null if there is none. A parked job (a priority) shows its
   * parked row's ready time as its run time, not the row's {@link OptionRows#PARKED_RUN_AT}.
   */
  static @Nullable FencingJobRecord read(DSLContext dsl, long jobId) {
    FencingJobRecord row = dsl.selectFrom(FENCING_JOB).where(FENCING_JOB.ID.eq(jobId)).fetchOne();
    if (row != null && row.getRunAt().getYear() == PARKED_YEAR) {
      FencingParked k = FENCING_PARKED;
      OffsetDateTime ready =
          dsl.select(k.READY_AT).from(k).where(k.JOB_ID.eq(jobId)).fetchOne(k.READY_AT);
      if (ready != null) {
        row.setRunAt(ready);
        row.changed(false);
      }
    }
    return row;
  }

  /** The year of {@link OptionRows#PARKED_RUN_AT}. */
  private static final int PARKED_YEAR = 9999;

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
