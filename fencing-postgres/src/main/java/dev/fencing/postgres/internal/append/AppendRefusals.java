package dev.fencing.postgres.internal.append;

import static dev.fencing.postgres.internal.jooq.Tables.FENCING_APPEND_CLAIM;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_APPEND_DONE;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_APPEND_HANDOUT;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_APPEND_OPERATED;
import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.inline;

import dev.fencing.FencedOutcome;
import dev.fencing.JobState;
import dev.fencing.Lease;
import dev.fencing.postgres.internal.Cancels;
import dev.fencing.postgres.internal.Config;
import dev.fencing.postgres.internal.Jdbc;
import dev.fencing.postgres.internal.Refusals;
import dev.fencing.postgres.internal.jooq.tables.FencingAppendClaim;
import dev.fencing.postgres.internal.jooq.tables.FencingAppendDone;
import dev.fencing.postgres.internal.jooq.tables.FencingAppendHandout;
import dev.fencing.postgres.internal.jooq.tables.FencingAppendOperated;
import jakarta.inject.Inject;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.jooq.JSONB;
import org.jooq.Record;
import org.jspecify.annotations.Nullable;

/**
 * The rare path of the append-only engine's writes: a lease that did not own its job is explained
 * afterwards from a fresh read of the job's rows ({@link AppendState}). A repeat of a write that
 * landed (its acknowledgement lost) is accepted as a repeat, anything else refused with the reason.
 */
final class AppendRefusals extends Refusals {

  @Inject
  AppendRefusals(Jdbc jdbc, Config config) {
    super(jdbc, config, "fencing_append_job_id_seq");
  }

  /**
   * Tells, for each write of {@code ops} at the positions {@code missed}, a repeat of a write that
   * landed from a refusal, and puts its outcome in {@code outcomes}.
   *
   * @throws IllegalArgumentException if a lease names a job that never existed
   */
  void explain(List<LeaseWrite> ops, List<Integer> missed, LeaseWrite.Outcome[] outcomes) {
    Set<Long> ids = new HashSet<>();
    missed.forEach(i -> ids.add(ops.get(i).lease().jobId()));
    Map<Long, AppendState> states = read(dsl -> AppendState.read(dsl, ids));
    Map<Long, Cancels.Mark> cancels = read(dsl -> Cancels.marks(dsl, ids));
    for (int i : missed) {
      LeaseWrite op = ops.get(i);
      Lease lease = op.lease();
      AppendState state = states.get(lease.jobId());
      if (state == null) {
        outcomes[i] = LeaseWrite.Outcome.refused(recorded(lease, action(op), gone(lease)));
        continue;
      }
      // before any repeat: the cancel's done row holds the holder's epoch and owner, as the
      // holder's own fail would
      Cancels.Mark cancel = cancels.get(lease.jobId());
      FencedOutcome.Cancelled cancelled = cancel == null ? null : cancel.refusal(lease);
      if (cancelled != null) {
        outcomes[i] = LeaseWrite.Outcome.refused(recorded(lease, action(op), cancelled));
        continue;
      }
      FencedOutcome.Refused refused = state.refusal(lease);
      boolean repeat =
          switch (op.kind()) {
            case COMPLETE ->
                refused instanceof FencedOutcome.AlreadyFinished
                    && state.state() == JobState.COMPLETED
                    && sameResult(lease.jobId(), op.result());
            case FAIL -> givenBack(lease, state, refused, "fail", op.error());
            case FAIL_FINALLY ->
                refused instanceof FencedOutcome.AlreadyFinished
                    && state.state() == JobState.FAILED
                    && givenBack(lease, state, refused, "fail", op.error());
            case RELEASE -> givenBack(lease, state, refused, "release", null);
            case RENEW -> false;
          };
      outcomes[i] =
          repeat
              ? LeaseWrite.Outcome.accepted(lease, true)
              : LeaseWrite.Outcome.refused(recorded(lease, action(op), refused));
    }
  }

  /**
   * The write's name as a refusal's record says it: complete, fail, renew or release (a final
   * failure is a fail).
   */
  private static String action(LeaseWrite op) {
    return op.kind() == LeaseWrite.Kind.FAIL_FINALLY
        ? "fail"
        : op.kind().name().toLowerCase(Locale.ROOT);
  }

  private boolean sameResult(long jobId, @Nullable String result) {
    FencingAppendDone d = FENCING_APPEND_DONE;
    Boolean same =
        read(
            dsl ->
                dsl.select(field(d.RESULT.eq(JSONB.valueOf(result))))
                    .from(d)
                    .where(d.JOB_ID.eq(jobId))
                    .fetchOne(0, Boolean.class));
    return Boolean.TRUE.equals(same);
  }

  /**
   * Whether an operator failed the job while {@code lease} held it (the end is not the lease's).
   */
  private boolean failedByAnOperator(Lease lease) {
    FencingAppendOperated o = FENCING_APPEND_OPERATED;
    return read(
        dsl ->
            dsl.fetchExists(
                o,
                o.JOB_ID
                    .eq(lease.jobId())
                    .and(o.EVENT.eq(inline("admin_failed")))
                    .and(o.EPOCH.eq(lease.epoch().value()))));
  }

  /**
   * Whether this lease's fail (or release) landed: the job waits in {@code requeue} (or failed for
   * good) with this lease's epoch, owner and error, or the job's next hand-out says it came from
   * such a write of this lease.
   */
  private boolean givenBack(
      Lease lease,
      AppendState state,
      FencedOutcome.Refused refused,
      String reason,
      @Nullable String error) {
    long epoch = lease.epoch().value();
    if (refused instanceof FencedOutcome.AlreadyFinished) {
      if (state.readyAt() != null) {
        return reason.equals(state.reason())
            && (error == null || error.equals(state.requeueError()));
      }
      return reason.equals("fail")
          && state.state() == JobState.FAILED
          && error != null
          && error.equals(state.doneError())
          && !failedByAnOperator(lease);
    }
    if (!(refused instanceof FencedOutcome.Superseded)) {
      return false;
    }
    FencingAppendHandout h = FENCING_APPEND_HANDOUT;
    FencingAppendHandout mine = FENCING_APPEND_HANDOUT.as("mine");
    FencingAppendClaim c = FENCING_APPEND_CLAIM;
    Record next =
        read(
            dsl ->
                dsl.select(h.CAME_FROM, h.LAST_ERROR, c.OWNER)
                    .from(h)
                    .join(mine)
                    .on(mine.JOB_ID.eq(h.JOB_ID).and(mine.EPOCH.eq(epoch)))
                    .join(c)
                    .on(c.ID.eq(mine.CLAIM_ID))
                    .where(h.JOB_ID.eq(lease.jobId()))
                    .and(h.EPOCH.gt(epoch))
                    .orderBy(h.EPOCH)
                    .limit(1)
                    .fetchOne());
    return next != null
        && reason.equals(next.get(h.CAME_FROM))
        && lease.owner().equals(next.get(c.OWNER))
        && (error == null || error.equals(next.get(h.LAST_ERROR)));
  }
}
