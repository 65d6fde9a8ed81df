package dev.fencing.postgres.internal;

import static dev.fencing.postgres.internal.jooq.Tables.FENCING_APPEND_CLAIM;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_APPEND_DONE;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_APPEND_HANDOUT;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_APPEND_REQUEUE;
import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.name;
import static org.jooq.impl.DSL.noCondition;
import static org.jooq.impl.DSL.row;
import static org.jooq.impl.DSL.select;
import static org.jooq.impl.DSL.table;
import static org.jooq.impl.DSL.val;

import dev.fencing.FencedOutcome;
import dev.fencing.JobState;
import dev.fencing.Lease;
import dev.fencing.OutboxMessage;
import dev.fencing.postgres.internal.jooq.tables.FencingAppendClaim;
import dev.fencing.postgres.internal.jooq.tables.FencingAppendDone;
import dev.fencing.postgres.internal.jooq.tables.FencingAppendHandout;
import dev.fencing.postgres.internal.jooq.tables.FencingAppendRequeue;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.JSONB;
import org.jooq.Record;
import org.jooq.Record2;
import org.jooq.impl.SQLDataType;
import org.jspecify.annotations.Nullable;

/**
 * Every write of a lease on the append-only engine, single or batched, as one transaction: lock the
 * claim rows the leases name (in id order, so two batches never deadlock), read each job's state,
 * and write only for the leases that own their job then ({@link AppendState#ownedBy}): a {@code
 * done} row for a commit (with its outbox messages) or a failure without attempts left, a {@code
 * requeue} row for a failure with attempts left or a release, a new expiry for a renewal; the claim
 * row counts off the jobs settled. A claim that takes a row over locks it too, so a write and a
 * takeover of one claim row happen one after the other, and the second sees the first.
 *
 * <p>A lease that did not own its job is explained afterwards from a fresh read: a repeat of a
 * write that landed (its acknowledgement lost) is accepted as a repeat, anything else refused with
 * the reason.
 */
final class AppendWrites {

  /** What a write does. */
  enum Kind {
    COMPLETE,
    FAIL,
    RELEASE,
    RENEW
  }

  /**
   * One write under a lease.
   *
   * @param result for a commit, JSON
   * @param error for a failure, as kept
   * @param micros for a failure, the retry delay; for a renewal, the lease length
   */
  record Op(
      Lease lease,
      Kind kind,
      @Nullable String result,
      List<OutboxMessage> messages,
      @Nullable String error,
      long micros) {}

  /** What became of one write: accepted (a renewal with its new lease), or refused. */
  record Outcome(
      FencedOutcome.@Nullable Accepted accepted,
      @Nullable Lease renewed,
      FencedOutcome.@Nullable Refused refused) {}

  private final Jdbc jdbc;
  private final OutboxWrites outbox;
  private final Notifier notifier;
  private final Config config;

  @Inject
  AppendWrites(Jdbc jdbc, OutboxWrites outbox, Notifier notifier, Config config) {
    this.jdbc = jdbc;
    this.config = config;
    this.outbox = outbox;
    this.notifier = notifier;
  }

  /**
   * Runs {@code ops} in one transaction, retried after a transient failure.
   *
   * @throws IllegalArgumentException if a lease names a job that never existed
   */
  List<Outcome> write(List<Op> ops) {
    Outcome[] outcomes =
        jdbc.guarded(() -> jdbc.transaction(c -> writeOnce(c, ops, new Outcome[ops.size()])));
    List<Integer> missed = new ArrayList<>();
    for (int i = 0; i < outcomes.length; i++) {
      if (outcomes[i] == null) {
        missed.add(i);
      }
    }
    if (!missed.isEmpty()) {
      explain(ops, missed, outcomes);
    }
    return List.of(outcomes);
  }

  private Outcome[] writeOnce(Connection connection, List<Op> ops, Outcome[] outcomes)
      throws java.sql.SQLException {
    DSLContext d = jdbc.on(connection);
    FencingAppendClaim c = FENCING_APPEND_CLAIM;
    FencingAppendHandout h = FENCING_APPEND_HANDOUT;
    Condition named = noCondition();
    Set<Long> jobIds = new HashSet<>();
    for (Op op : ops) {
      named = named.or(row(h.JOB_ID, h.EPOCH).eq(op.lease().jobId(), op.lease().epoch().value()));
      jobIds.add(op.lease().jobId());
    }
    d.select(c.ID)
        .from(c)
        .where(c.ID.in(select(h.CLAIM_ID).from(h).where(named)))
        .orderBy(c.ID)
        .forNoKeyUpdate()
        .execute();
    Map<Long, AppendState> states = AppendState.read(d, jobIds);

    Set<Long> settled = new HashSet<>();
    Map<Long, Integer> countedOff = new TreeMap<>();
    Map<Long, Long> renewals = new LinkedHashMap<>();
    List<Integer> renewing = new ArrayList<>();
    Set<String> notify = new HashSet<>();
    FencingAppendDone done = FENCING_APPEND_DONE;
    var doneRows =
        d.insertInto(
            done,
            done.JOB_ID,
            done.QUEUE,
            done.EPOCH,
            done.STATUS,
            done.OWNER,
            done.ATTEMPTS,
            done.RESULT,
            done.LAST_ERROR);
    int doneCount = 0;
    FencingAppendRequeue r = FENCING_APPEND_REQUEUE;
    var requeueRows =
        d.insertInto(
            r, r.JOB_ID, r.QUEUE, r.READY_AT, r.EPOCH, r.OWNER, r.ATTEMPTS, r.REASON, r.LAST_ERROR);
    int requeueCount = 0;
    List<OutboxWrites.Row> messages = new ArrayList<>();
    for (int i = 0; i < ops.size(); i++) {
      Op op = ops.get(i);
      Lease lease = op.lease();
      AppendState state = states.get(lease.jobId());
      if (state == null || settled.contains(lease.jobId()) || !state.ownedBy(lease)) {
        continue;
      }
      long epoch = lease.epoch().value();
      switch (op.kind()) {
        case RENEW -> {
          renewals.put(state.claimId(), op.micros());
          renewing.add(i);
          continue;
        }
        case COMPLETE -> {
          doneRows =
              doneRows.values(
                  lease.jobId(),
                  state.queue(),
                  epoch,
                  JobState.COMPLETED.dbName(),
                  lease.owner(),
                  state.handAttempt(),
                  JSONB.valueOf(op.result()),
                  null);
          doneCount++;
          messages.addAll(OutboxWrites.rows(lease, op.messages()));
        }
        case FAIL -> {
          if (state.handAttempt() >= state.maxAttempts()) {
            doneRows =
                doneRows.values(
                    lease.jobId(),
                    state.queue(),
                    epoch,
                    JobState.FAILED.dbName(),
                    lease.owner(),
                    state.handAttempt(),
                    null,
                    op.error());
            doneCount++;
          } else {
            requeueRows =
                requeueRows.values(
                    val(lease.jobId()),
                    val(state.queue()),
                    LeaseSql.nowPlusMicros(val(op.micros())),
                    val(epoch),
                    val(lease.owner()),
                    val(state.handAttempt()),
                    val("fail"),
                    val(op.error()));
            requeueCount++;
            if (op.micros() == 0) {
              notify.add(state.queue());
            }
          }
        }
        case RELEASE -> {
          requeueRows =
              requeueRows.values(
                  val(lease.jobId()),
                  val(state.queue()),
                  LeaseSql.nowPlusMicros(val(0L)),
                  val(epoch),
                  val(lease.owner()),
                  val(state.handAttempt() - 1),
                  val("release"),
                  val(state.handError()));
          requeueCount++;
          notify.add(state.queue());
        }
      }
      settled.add(lease.jobId());
      countedOff.merge(state.claimId(), 1, Integer::sum);
      outcomes[i] =
          new Outcome(new FencedOutcome.Accepted(lease.key(), lease.epoch(), false), null, null);
    }
    if (doneCount > 0) {
      doneRows.execute();
    }
    if (requeueCount > 0) {
      requeueRows.execute();
    }
    outbox.insert(connection, messages);
    for (Map.Entry<Long, Integer> off : countedOff.entrySet()) {
      d.update(c)
          .set(c.OPEN, c.OPEN.minus(off.getValue()))
          .set(c.LIVE, field(c.OPEN.minus(off.getValue()).gt(0)))
          .where(c.ID.eq(off.getKey()))
          .execute();
    }
    if (!renewals.isEmpty()) {
      Map<Long, OffsetDateTime> extended = new TreeMap<>();
      for (Map.Entry<Long, Long> renewal : renewals.entrySet()) {
        Record2<Long, OffsetDateTime> row =
            d.update(c)
                .set(c.LEASE_EXPIRES_AT, LeaseSql.nowPlusMicros(val(renewal.getValue())))
                .where(c.ID.eq(renewal.getKey()))
                .returningResult(c.ID, c.LEASE_EXPIRES_AT)
                .fetchOne();
        extended.put(row.value1(), row.value2());
      }
      for (int i : renewing) {
        Lease lease = ops.get(i).lease();
        OffsetDateTime expiresAt = extended.get(states.get(lease.jobId()).claimId());
        outcomes[i] =
            new Outcome(
                null,
                new Lease(lease.jobId(), lease.owner(), lease.epoch(), expiresAt.toInstant()),
                null);
      }
    }
    for (String queue : notify) {
      notifier.inTransaction(connection, queue);
    }
    return outcomes;
  }

  /** The rare path: tells a repeat of a write that landed from a refusal, from a fresh read. */
  private void explain(List<Op> ops, List<Integer> missed, Outcome[] outcomes) {
    Set<Long> ids = new HashSet<>();
    missed.forEach(i -> ids.add(ops.get(i).lease().jobId()));
    Map<Long, AppendState> states =
        jdbc.guarded(() -> jdbc.run(c -> AppendState.read(jdbc.on(c), ids)));
    for (int i : missed) {
      Op op = ops.get(i);
      Lease lease = op.lease();
      AppendState state = states.get(lease.jobId());
      if (state == null) {
        if (wasIssued(lease.jobId())) {
          outcomes[i] =
              new Outcome(null, null, new FencedOutcome.Removed(lease.key(), lease.epoch()));
          continue;
        }
        throw new IllegalArgumentException(
            "jobId must name an existing job, but was " + lease.jobId() + " (unknown)");
      }
      FencedOutcome.Refused refused = state.refusal(lease);
      boolean repeat =
          switch (op.kind()) {
            case COMPLETE ->
                refused instanceof FencedOutcome.AlreadyFinished
                    && state.state() == JobState.COMPLETED
                    && sameResult(lease.jobId(), op.result());
            case FAIL -> givenBack(lease, state, refused, "fail", op.error());
            case RELEASE -> givenBack(lease, state, refused, "release", null);
            case RENEW -> false;
          };
      outcomes[i] =
          repeat
              ? new Outcome(
                  new FencedOutcome.Accepted(lease.key(), lease.epoch(), true), null, null)
              : new Outcome(null, null, refused);
    }
  }

  private boolean sameResult(long jobId, @Nullable String result) {
    FencingAppendDone d = FENCING_APPEND_DONE;
    Boolean same =
        jdbc.guarded(
            () ->
                jdbc.run(
                    c ->
                        jdbc.on(c)
                            .select(field(d.RESULT.eq(JSONB.valueOf(result))))
                            .from(d)
                            .where(d.JOB_ID.eq(jobId))
                            .fetchOne(0, Boolean.class)));
    return Boolean.TRUE.equals(same);
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
          && error.equals(state.doneError());
    }
    if (!(refused instanceof FencedOutcome.Superseded)) {
      return false;
    }
    FencingAppendHandout h = FENCING_APPEND_HANDOUT;
    FencingAppendHandout mine = FENCING_APPEND_HANDOUT.as("mine");
    FencingAppendClaim c = FENCING_APPEND_CLAIM;
    Record next =
        jdbc.guarded(
            () ->
                jdbc.run(
                    connection ->
                        jdbc.on(connection)
                            .select(h.CAME_FROM, h.LAST_ERROR, c.OWNER)
                            .from(h)
                            .join(mine)
                            .on(mine.JOB_ID.eq(h.JOB_ID).and(mine.EPOCH.eq(epoch)))
                            .join(c)
                            .on(c.ID.eq(mine.CLAIM_ID))
                            .where(h.JOB_ID.eq(lease.jobId()))
                            .and(h.EPOCH.gt(epoch))
                            .orderBy(h.EPOCH)
                            .limit(1)
                            .fetchOne()));
    return next != null
        && reason.equals(next.get(h.CAME_FROM))
        && lease.owner().equals(next.get(c.OWNER))
        && (error == null || error.equals(next.get(h.LAST_ERROR)));
  }

  /** Whether the job id sequence ever handed out {@code jobId}: ids are never reused. */
  private boolean wasIssued(long jobId) {
    Long last =
        jdbc.guarded(
            () ->
                jdbc.run(
                    c ->
                        jdbc.on(c)
                            .fetchValue(
                                field(
                                    "(select case when is_called then last_value else 0 end"
                                        + " from {0})",
                                    SQLDataType.BIGINT,
                                    table(name(config.schema(), "fencing_append_job_id_seq"))))));
    return last != null && jobId <= last;
  }
}
