package dev.fencing.postgres.internal.append;

import static dev.fencing.postgres.internal.jooq.Tables.FENCING_APPEND_CLAIM;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_APPEND_DONE;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_APPEND_HANDOUT;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_APPEND_OPERATED;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_APPEND_REQUEUE;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_APPEND_WINDOW;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_PARKED;
import static org.jooq.impl.DSL.any;
import static org.jooq.impl.DSL.currentOffsetDateTime;
import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.inline;
import static org.jooq.impl.DSL.not;
import static org.jooq.impl.DSL.val;

import dev.fencing.JobState;
import dev.fencing.postgres.internal.jooq.tables.FencingAppendClaim;
import dev.fencing.postgres.internal.jooq.tables.FencingAppendDone;
import dev.fencing.postgres.internal.jooq.tables.FencingAppendHandout;
import dev.fencing.postgres.internal.jooq.tables.FencingAppendOperated;
import dev.fencing.postgres.internal.jooq.tables.FencingAppendRequeue;
import dev.fencing.postgres.internal.jooq.tables.FencingAppendWindow;
import java.util.List;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Record;
import org.jooq.impl.SQLDataType;
import org.jspecify.annotations.Nullable;

/**
 * The rows an operator's change of a job writes on the append-only engine, in {@link AppendAdmin}'s
 * transaction, under the lock a claim or a write of the same job takes, so it cannot race either:
 *
 * <ul>
 *   <li><b>Fail a running job</b>: under its claim row's lock, a {@code done} row ({@code failed}),
 *       and the job counted off the claim row into its {@code given_back}, so every later write of
 *       the holder is refused.
 *   <li><b>Fail a requeued job</b>: its {@code requeue} row deleted (a claim holding it is waited
 *       for, and then the job is running), a {@code done} row.
 *   <li><b>Fail a fresh job</b>, never handed out: under the queue's window lock, a {@code done}
 *       row; the row in {@code fencing_append_operated} makes the window skip it.
 *   <li><b>Requeue a failed job</b>: under its last claim row's lock, the {@code done} row deleted,
 *       a {@code requeue} row (attempts 0, ready now), and the job in that claim row's {@code
 *       given_back}, so a late write of the lease that failed it finds it given back rather than
 *       the end it wrote gone.
 * </ul>
 *
 * Every change also writes the job's row of {@code fencing_append_operated}: what was done, at
 * which epoch. Each change answers true if made, false if refused, null if the job moved since it
 * was read (read it again).
 */
final class AppendChanges {

  static final String ADMIN_FAILED = "admin_failed";
  static final String REQUEUED = "requeued";

  private AppendChanges() {}

  /** Requeues the job {@code state} is, if it failed. */
  static @Nullable Boolean requeue(DSLContext dsl, AppendState state) {
    if (state.state() != JobState.FAILED) {
      return false;
    }
    long jobId = state.id();
    long epoch = state.epoch();
    if (epoch > 0 && !lockClaimOf(dsl, jobId, epoch)) {
      return null;
    }
    FencingAppendDone d = FENCING_APPEND_DONE;
    Record ended =
        dsl.deleteFrom(d)
            .where(d.JOB_ID.eq(jobId))
            .and(d.STATUS.eq(inline(JobState.FAILED.dbName())))
            .returning(d.QUEUE, d.EPOCH, d.OWNER, d.LAST_ERROR)
            .fetchOne();
    if (ended == null) {
      return null;
    }
    FencingAppendRequeue r = FENCING_APPEND_REQUEUE;
    dsl.insertInto(r)
        .set(r.JOB_ID, jobId)
        .set(r.QUEUE, ended.get(d.QUEUE))
        .set(r.READY_AT, currentOffsetDateTime())
        .set(r.EPOCH, ended.get(d.EPOCH))
        .set(r.OWNER, ended.get(d.OWNER) == null ? "" : ended.get(d.OWNER))
        .set(r.ATTEMPTS, 0)
        .set(r.REASON, REQUEUED)
        .set(r.LAST_ERROR, ended.get(d.LAST_ERROR))
        .execute();
    if (epoch > 0) {
      giveBack(dsl, jobId, epoch, false);
    }
    operated(dsl, jobId, REQUEUED, epoch);
    return true;
  }

  /** Fails the job {@code state} is with {@code kept}, if it is pending or running. */
  static @Nullable Boolean fail(DSLContext dsl, AppendState state, String kept) {
    JobState now = state.state();
    if (now != JobState.PENDING && now != JobState.RUNNING) {
      return false;
    }
    FencingAppendDone d = FENCING_APPEND_DONE;
    long jobId = state.id();
    long epoch = state.epoch();
    @Nullable String owner = state.owner();
    int attempts = state.attempts();
    if (now == JobState.RUNNING) {
      if (!lockClaimOf(dsl, jobId, epoch) || !runningUnder(dsl, jobId, epoch)) {
        return null;
      }
    } else if (state.readyAt() != null) {
      FencingAppendRequeue r = FENCING_APPEND_REQUEUE;
      // a parked job (a priority) waits in fencing_parked, beside a requeue row after a retry
      int waiting =
          dsl.deleteFrom(r).where(r.JOB_ID.eq(jobId)).execute()
              + dsl.deleteFrom(FENCING_PARKED).where(FENCING_PARKED.JOB_ID.eq(jobId)).execute();
      if (waiting == 0) {
        return null;
      }
    } else {
      lockWindow(dsl, state.queue());
      if (AppendState.read(dsl, List.of(jobId)).get(jobId).handEpoch() != 0) {
        return null;
      }
    }
    int ended =
        dsl.insertInto(d)
            .set(d.JOB_ID, jobId)
            .set(d.QUEUE, state.queue())
            .set(d.EPOCH, epoch)
            .set(d.STATUS, inline(JobState.FAILED.dbName()))
            .set(d.OWNER, owner)
            .set(d.ATTEMPTS, attempts)
            .set(d.LAST_ERROR, kept)
            .onConflict(d.JOB_ID)
            .doNothing()
            .execute();
    if (ended == 0) {
      return null;
    }
    if (now == JobState.RUNNING) {
      giveBack(dsl, jobId, epoch, true);
    }
    operated(dsl, jobId, ADMIN_FAILED, epoch);
    return true;
  }

  /** Locks the claim row that handed out {@code jobId} at {@code epoch}, as a write does. */
  private static boolean lockClaimOf(DSLContext dsl, long jobId, long epoch) {
    FencingAppendHandout h = FENCING_APPEND_HANDOUT;
    FencingAppendClaim c = FENCING_APPEND_CLAIM;
    return dsl.select(c.ID)
            .from(c)
            .where(c.ID.eq(claimOf(dsl, jobId, epoch)))
            .forNoKeyUpdate()
            .fetchOne()
        != null;
  }

  /** The claim row that handed {@code jobId} out at {@code epoch}. */
  private static Field<Long> claimOf(DSLContext dsl, long jobId, long epoch) {
    FencingAppendHandout h = FENCING_APPEND_HANDOUT;
    return dsl.select(h.CLAIM_ID)
        .from(h)
        .where(h.JOB_ID.eq(jobId))
        .and(h.EPOCH.eq(epoch))
        .<Long>asField();
  }

  /** Whether the claim row of that hand-out still holds the job, read after its lock. */
  private static boolean runningUnder(DSLContext dsl, long jobId, long epoch) {
    AppendState now = AppendState.read(dsl, List.of(jobId)).get(jobId);
    return now.state() == JobState.RUNNING && now.epoch() == epoch;
  }

  /**
   * Puts the job into the {@code given_back} of the claim row that handed it out at {@code epoch};
   * {@code countOff} also counts it off the row's open jobs (it was open).
   */
  private static void giveBack(DSLContext dsl, long jobId, long epoch, boolean countOff) {
    FencingAppendHandout h = FENCING_APPEND_HANDOUT;
    FencingAppendClaim c = FENCING_APPEND_CLAIM;
    var update =
        dsl.update(c)
            .set(
                c.GIVEN_BACK,
                field(
                    "array_append({0}, {1})",
                    SQLDataType.BIGINT.array(), c.GIVEN_BACK, val(jobId)));
    if (countOff) {
      update =
          update
              .set(c.OPEN, c.OPEN.minus(inline(1)))
              .set(c.LIVE, field(c.OPEN.minus(inline(1)).gt(inline(0))));
    }
    update
        .where(c.ID.eq(claimOf(dsl, jobId, epoch)))
        .and(not(val(jobId).eq(any(c.GIVEN_BACK))))
        .execute();
  }

  /** Locks the queue's window, which every claim of the queue holds while it takes fresh jobs. */
  private static void lockWindow(DSLContext dsl, String queue) {
    AppendWindow.create(dsl, queue);
    FencingAppendWindow w = FENCING_APPEND_WINDOW;
    dsl.select(w.QUEUE).from(w).where(w.QUEUE.eq(queue)).forUpdate().fetch();
  }

  private static void operated(DSLContext dsl, long jobId, String event, long epoch) {
    FencingAppendOperated o = FENCING_APPEND_OPERATED;
    dsl.insertInto(o)
        .set(o.JOB_ID, jobId)
        .set(o.EVENT, event)
        .set(o.EPOCH, epoch)
        .onConflict(o.JOB_ID)
        .doUpdate()
        .set(o.EVENT, event)
        .set(o.EPOCH, epoch)
        .set(o.AT, currentOffsetDateTime())
        .execute();
  }
}
