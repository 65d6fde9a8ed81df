package dev.fencing.postgres.internal.append;

import static dev.fencing.postgres.internal.jooq.Tables.FENCING_APPEND_CLAIM;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_APPEND_DONE;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_APPEND_HANDOUT;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_APPEND_JOB;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_APPEND_REQUEUE;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_PARKED;
import static org.jooq.impl.DSL.coalesce;
import static org.jooq.impl.DSL.lateral;
import static org.jooq.impl.DSL.select;
import static org.jooq.impl.DSL.trueCondition;

import dev.fencing.FencedOutcome;
import dev.fencing.JobSnapshot;
import dev.fencing.JobState;
import dev.fencing.Lease;
import dev.fencing.postgres.internal.Refusals;
import dev.fencing.postgres.internal.jooq.tables.FencingAppendClaim;
import dev.fencing.postgres.internal.jooq.tables.FencingAppendDone;
import dev.fencing.postgres.internal.jooq.tables.FencingAppendHandout;
import dev.fencing.postgres.internal.jooq.tables.FencingAppendJob;
import dev.fencing.postgres.internal.jooq.tables.FencingAppendRequeue;
import dev.fencing.postgres.internal.jooq.tables.FencingParked;
import java.time.OffsetDateTime;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.JSONB;
import org.jooq.Record;
import org.jooq.Table;
import org.jspecify.annotations.Nullable;

/**
 * A job of the append-only engine as it stands, put together from its rows: the job, its newest
 * hand-out and that hand-out's claim row, its {@code done} row, its {@code requeue} row. At most
 * one of the last two exists; a job with neither is running if it was ever handed out, else
 * pending.
 *
 * @param handEpoch the epoch of the newest hand-out, 0 if never handed out
 */
record AppendState(
    long id,
    String queue,
    String payload,
    int maxAttempts,
    OffsetDateTime createdAt,
    @Nullable String doneStatus,
    long doneEpoch,
    @Nullable String doneOwner,
    int doneAttempts,
    @Nullable String result,
    @Nullable String doneError,
    @Nullable OffsetDateTime readyAt,
    long requeueEpoch,
    @Nullable String requeueOwner,
    int requeueAttempts,
    @Nullable String reason,
    @Nullable String requeueError,
    long handEpoch,
    int handAttempt,
    @Nullable String handError,
    @Nullable String claimOwner,
    @Nullable OffsetDateTime leaseExpiresAt) {

  /**
   * The reason of the {@code requeue} row of a job enqueued to run later (epoch 0, owner {@code
   * ''}, no attempts): written by the enqueue, not by a hand-out.
   */
  static final String SCHEDULED = "scheduled";

  /**
   * The reason of the {@code requeue} row of a job a takeover put back to wait ({@link
   * Reclaims#settleTakenOver}): its lease ran out and the claim that took the lease over had no
   * room for it in its batch (or under the queue's running limit).
   */
  static final String EXPIRED = "expired";

  JobState state() {
    if (doneStatus != null) {
      return JobState.fromDbName(doneStatus);
    }
    if (readyAt != null || handEpoch == 0) {
      return JobState.PENDING;
    }
    return JobState.RUNNING;
  }

  long epoch() {
    return fromNewestRow(doneEpoch, requeueEpoch, handEpoch);
  }

  @Nullable String owner() {
    String owner = fromNewestRow(doneOwner, requeueOwner, claimOwner);
    // a scheduled job's requeue row names no owner
    return owner == null || owner.isEmpty() ? null : owner;
  }

  int attempts() {
    return fromNewestRow(doneAttempts, requeueAttempts, handAttempt);
  }

  @Nullable String lastError() {
    return fromNewestRow(doneError, requeueError, handError);
  }

  /**
   * What the row that says where the job stands holds: its {@code done} row if it has one, else its
   * {@code requeue} row if it has one, else its newest hand-out (and that hand-out's claim row).
   */
  private <T> T fromNewestRow(T done, T requeued, T handedOut) {
    if (doneStatus != null) {
      return done;
    }
    return readyAt != null ? requeued : handedOut;
  }

  /** Why a write under {@code lease}, which does not own the job, is refused. */
  FencedOutcome.Refused refusal(Lease lease) {
    JobState state = state();
    boolean ranOut = state == JobState.RUNNING || takenBack();
    return Refusals.classify(lease, state, owner(), epoch(), ranOut ? leaseExpiresAt : null);
  }

  /**
   * Whether the job waits because a takeover put it back after the lease of its newest hand-out ran
   * out: taken from that lease (whose claim row tells when it ran out), not ended by it.
   */
  private boolean takenBack() {
    return doneStatus == null
        && readyAt != null
        && EXPIRED.equals(reason)
        && requeueEpoch == handEpoch;
  }

  JobSnapshot snapshot() {
    JobState state = state();
    return new JobSnapshot(
        id,
        queue,
        state,
        owner(),
        epoch(),
        attempts(),
        maxAttempts,
        payload,
        result,
        lastError(),
        (readyAt != null && doneStatus == null ? readyAt : createdAt).toInstant(),
        state == JobState.RUNNING && leaseExpiresAt != null ? leaseExpiresAt.toInstant() : null);
  }

  /** Reads the jobs {@code ids} name (those that exist), in one statement. */
  static Map<Long, AppendState> read(DSLContext dsl, Collection<Long> ids) {
    FencingAppendJob j = FENCING_APPEND_JOB;
    FencingAppendDone d = FENCING_APPEND_DONE;
    FencingAppendRequeue r = FENCING_APPEND_REQUEUE;
    // a parked job waits for its parked row's time (its requeue row, if any, at PARKED_RUN_AT)
    FencingParked p = FENCING_PARKED;
    Field<OffsetDateTime> readyAt = coalesce(p.READY_AT, r.READY_AT);
    FencingAppendHandout hh = FENCING_APPEND_HANDOUT;
    FencingAppendClaim c = FENCING_APPEND_CLAIM;
    Table<?> h =
        lateral(
                select(hh.EPOCH, hh.ATTEMPT, hh.LAST_ERROR, hh.CLAIM_ID)
                    .from(hh)
                    .where(hh.JOB_ID.eq(j.ID))
                    .orderBy(hh.EPOCH.desc())
                    .limit(1))
            .as("h");
    Field<Long> hEpoch = h.field(hh.EPOCH);
    Field<Integer> hAttempt = h.field(hh.ATTEMPT);
    Field<String> hError = h.field(hh.LAST_ERROR);
    Field<Long> hClaim = h.field(hh.CLAIM_ID);
    Map<Long, AppendState> states = new HashMap<>();
    for (Record row :
        dsl.select(
                j.ID,
                j.QUEUE,
                j.PAYLOAD,
                j.MAX_ATTEMPTS,
                j.CREATED_AT,
                d.STATUS,
                d.EPOCH,
                d.OWNER,
                d.ATTEMPTS,
                d.RESULT,
                d.LAST_ERROR,
                readyAt,
                r.EPOCH,
                r.OWNER,
                r.ATTEMPTS,
                r.REASON,
                r.LAST_ERROR,
                hEpoch,
                hAttempt,
                hError,
                c.OWNER,
                c.LEASE_EXPIRES_AT)
            .from(j)
            .leftJoin(d)
            .on(d.JOB_ID.eq(j.ID))
            .leftJoin(r)
            .on(r.JOB_ID.eq(j.ID))
            .leftJoin(p)
            .on(p.JOB_ID.eq(j.ID))
            .leftJoin(h)
            .on(trueCondition())
            .leftJoin(c)
            .on(c.ID.eq(hClaim))
            .where(j.ID.in(ids))
            .fetch()) {
      JSONB result = row.get(d.RESULT);
      states.put(
          row.get(j.ID),
          new AppendState(
              row.get(j.ID),
              row.get(j.QUEUE),
              row.get(j.PAYLOAD).data(),
              row.get(j.MAX_ATTEMPTS),
              row.get(j.CREATED_AT),
              row.get(d.STATUS),
              orZero(row.get(d.EPOCH)),
              row.get(d.OWNER),
              orZero(row.get(d.ATTEMPTS)),
              result == null ? null : result.data(),
              row.get(d.LAST_ERROR),
              row.get(readyAt),
              orZero(row.get(r.EPOCH)),
              row.get(r.OWNER),
              orZero(row.get(r.ATTEMPTS)),
              row.get(r.REASON),
              row.get(r.LAST_ERROR),
              orZero(row.get(hEpoch)),
              orZero(row.get(hAttempt)),
              row.get(hError),
              row.get(c.OWNER),
              row.get(c.LEASE_EXPIRES_AT)));
    }
    return states;
  }

  private static long orZero(@Nullable Long value) {
    return value == null ? 0 : value;
  }

  private static int orZero(@Nullable Integer value) {
    return value == null ? 0 : value;
  }
}
