package dev.fencing.postgres.internal.append;

import static dev.fencing.postgres.internal.jooq.Tables.FENCING_APPEND_CLAIM;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_APPEND_DONE;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_APPEND_HANDOUT;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_APPEND_JOB;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_APPEND_OPERATED;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_APPEND_REQUEUE;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_APPEND_WINDOW;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_PARKED;
import static org.jooq.impl.DSL.coalesce;
import static org.jooq.impl.DSL.count;
import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.inline;
import static org.jooq.impl.DSL.noCondition;
import static org.jooq.impl.DSL.select;
import static org.jooq.impl.DSL.selectOne;
import static org.jooq.impl.DSL.sum;

import dev.fencing.CommitOutcome;
import dev.fencing.FencedOffException;
import dev.fencing.FencedOutcome;
import dev.fencing.JobConsumer.Completion;
import dev.fencing.JobSnapshot;
import dev.fencing.JobState;
import dev.fencing.Lease;
import dev.fencing.OutboxMessage;
import dev.fencing.QueueDepth;
import dev.fencing.Renewal;
import dev.fencing.internal.Batches;
import dev.fencing.internal.Validate;
import dev.fencing.postgres.internal.CommitFrame;
import dev.fencing.postgres.internal.EngineStore;
import dev.fencing.postgres.internal.Jdbc;
import dev.fencing.postgres.internal.JobStore;
import dev.fencing.postgres.internal.JsonProbe;
import dev.fencing.postgres.internal.OptionRows;
import dev.fencing.postgres.internal.OutboxWrites;
import dev.fencing.postgres.internal.Retention;
import dev.fencing.postgres.internal.RetentionBatch;
import dev.fencing.postgres.internal.Text;
import dev.fencing.postgres.internal.jooq.tables.FencingAppendClaim;
import dev.fencing.postgres.internal.jooq.tables.FencingAppendDone;
import dev.fencing.postgres.internal.jooq.tables.FencingAppendJob;
import dev.fencing.postgres.internal.jooq.tables.FencingAppendWindow;
import jakarta.inject.Inject;
import jakarta.inject.Provider;
import jakarta.inject.Singleton;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.IntFunction;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.QueryPart;
import org.jooq.Record4;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;
import org.jspecify.annotations.Nullable;

/**
 * The append-only engine behind {@link JobStore} (docs/ENGINE.md): jobs are inserted once and never
 * updated; a claim appends one claim row per batch and one hand-out per job, a commit appends the
 * job's {@code done} row under a compare-and-set on the claim row. The rules are those of {@link
 * dev.fencing.FencedQueue}, as on the other engine: a token per job that only goes up, a
 * compare-and-set on owner and epoch for every write of a lease, work by priority then oldest ready
 * first, attempts counted per claim.
 */
@Singleton
public final class AppendStore extends EngineStore {

  private static final JobTable JOBS =
      new JobTable(
          FENCING_APPEND_JOB,
          FENCING_APPEND_JOB.ID,
          FENCING_APPEND_JOB.QUEUE,
          FENCING_APPEND_JOB.PAYLOAD,
          FENCING_APPEND_JOB.MAX_ATTEMPTS,
          FENCING_APPEND_JOB.IDEMPOTENCY_KEY,
          FENCING_APPEND_JOB.ENQUEUE_TOKEN,
          // the enqueueing transaction's id, by which claims take fresh jobs (see AppendWindow)
          List.of(FENCING_APPEND_JOB.XID),
          List.of(AppendWindow.CURRENT_XID));

  private final AppendWrites writes;
  private final JsonProbe probe;

  @Inject
  AppendStore(
      Jdbc jdbc,
      AppendClaims claims,
      AppendWrites writes,
      JsonProbe probe,
      Provider<AppendAdmin> admin) {
    super(JOBS, jdbc, claims::claimBatch, claims.slotTests(), admin);
    this.writes = writes;
    this.probe = probe;
  }

  /**
   * Every job with options gets an operated row at epoch 0, so that the window skips it (V1 and V2
   * claims alike); one without a priority then waits in a {@code requeue} row (reason {@code
   * scheduled}, epoch 0, no owner), which V1's claim hands out when due, one with a priority is
   * parked.
   */
  @Override
  public QueryPart optionRows(Field<String> queue) {
    return DSL.sql(
        "o_operated as (insert into {0} (job_id, event, epoch) select o.id, 'requeued', 0 from o),"
            + " o_requeue as (insert into {1} (job_id, queue, ready_at, epoch, owner, attempts,"
            + " reason) select o.id, {2}, o.ready, 0, '', 0, {3} from o where not ("
            + OptionRows.PARKS
            + ")), {4}",
        FENCING_APPEND_OPERATED,
        FENCING_APPEND_REQUEUE,
        queue,
        inline(AppendState.SCHEDULED),
        OptionRows.parked(queue));
  }

  @Override
  public @Nullable Field<OffsetDateTime> runAt() {
    return null;
  }

  @Override
  public List<Renewal> renewAll(List<Lease> leases, Duration leaseLength) {
    Objects.requireNonNull(leases, "leases");
    Validate.leaseLength(leaseLength);
    List<LeaseWrite> ops = new ArrayList<>(leases.size());
    for (int i = 0; i < leases.size(); i++) {
      Lease lease = Objects.requireNonNull(leases.get(i), "leases[" + i + "]");
      ops.add(
          new LeaseWrite(
              lease, LeaseWrite.Kind.RENEW, null, List.of(), null, leaseLength.toNanos() / 1_000));
    }
    if (ops.isEmpty()) {
      return List.of();
    }
    List<LeaseWrite.Outcome> outcomes = writes.write(ops);
    List<Renewal> renewals = new ArrayList<>(outcomes.size());
    for (int i = 0; i < outcomes.size(); i++) {
      LeaseWrite.Outcome outcome = outcomes.get(i);
      renewals.add(
          outcome.renewed() != null
              ? new Renewal.Renewed(outcome.renewed())
              : new Renewal.Lost(leases.get(i), Objects.requireNonNull(outcome.refused())));
    }
    return renewals;
  }

  @Override
  public FencedOutcome.Accepted complete(Lease lease, String result, List<OutboxMessage> messages) {
    Objects.requireNonNull(lease, "lease");
    Validate.json("result", result);
    Batches.messages("messages", messages);
    Text.requireSendable("result", result);
    OutboxWrites.requireSendable("messages", messages);
    CommitOutcome outcome =
        completeAll(List.of(new Completion(lease, result, messages)), i -> "").getFirst();
    return switch (outcome) {
      case FencedOutcome.Accepted accepted -> accepted;
      case FencedOutcome.Refused refused -> throw new FencedOffException(refused);
      case CommitOutcome.Invalid invalid -> throw invalid.error();
    };
  }

  @Override
  public List<CommitOutcome> completeAll(List<Completion> completions) {
    return completeAll(completions, CommitFrame.BATCH_NAMES);
  }

  private List<CommitOutcome> completeAll(List<Completion> completions, IntFunction<String> names) {
    return CommitFrame.completeAll(
        completions,
        names,
        probe,
        items -> {
          List<LeaseWrite> ops = new ArrayList<>(items.size());
          for (int i : items) {
            Completion completion = completions.get(i);
            ops.add(
                new LeaseWrite(
                    completion.lease(),
                    LeaseWrite.Kind.COMPLETE,
                    completion.result(),
                    completion.messages(),
                    null,
                    0));
          }
          List<LeaseWrite.Outcome> written = writes.write(ops);
          Map<Integer, CommitOutcome> outcomes = new HashMap<>();
          for (int k = 0; k < items.size(); k++) {
            LeaseWrite.Outcome outcome = written.get(k);
            outcomes.put(
                items.get(k), outcome.accepted() != null ? outcome.accepted() : outcome.refused());
          }
          return outcomes;
        });
  }

  @Override
  public FencedOutcome.Accepted fail(Lease lease, String error, Duration retryDelay) {
    return one(
        new LeaseWrite(
            lease,
            LeaseWrite.Kind.FAIL,
            null,
            List.of(),
            Text.storable(error, CommitFrame.MAX_ERROR_LENGTH),
            retryDelay.toNanos() / 1_000));
  }

  @Override
  public FencedOutcome.Accepted failFinally(Lease lease, String error) {
    return one(
        new LeaseWrite(
            lease,
            LeaseWrite.Kind.FAIL_FINALLY,
            null,
            List.of(),
            Text.storable(error, CommitFrame.MAX_ERROR_LENGTH),
            0));
  }

  @Override
  public FencedOutcome.Accepted release(Lease lease) {
    Objects.requireNonNull(lease, "lease");
    return one(new LeaseWrite(lease, LeaseWrite.Kind.RELEASE, null, List.of(), null, 0));
  }

  private FencedOutcome.Accepted one(LeaseWrite op) {
    LeaseWrite.Outcome outcome = writes.write(List.of(op)).getFirst();
    if (outcome.accepted() == null) {
      throw new FencedOffException(Objects.requireNonNull(outcome.refused()));
    }
    return outcome.accepted();
  }

  @Override
  public Optional<JobSnapshot> find(long jobId) {
    return Optional.ofNullable(read(dsl -> AppendState.read(dsl, List.of(jobId))).get(jobId))
        .map(AppendState::snapshot);
  }

  /**
   * Pending: jobs not yet handed out (those of the window after its position, and of later windows)
   * plus the requeued; running: the open jobs of live claim rows; failed: the failed {@code done}
   * rows. One statement.
   */
  @Override
  public QueueDepth depth(String queue) {
    FencingAppendJob j = FENCING_APPEND_JOB;
    FencingAppendWindow w = FENCING_APPEND_WINDOW;
    return read(
        d -> {
          Record4<String, String, Long, Long> window =
              d.select(w.LO, w.HI, w.AFTER_XID, w.AFTER_ID)
                  .from(w)
                  .where(w.QUEUE.eq(queue))
                  .fetchOne();
          Field<Long> fresh =
              field(
                  select(count().cast(SQLDataType.BIGINT))
                      .from(j)
                      .where(j.QUEUE.eq(queue))
                      .and(AppendWindow.fresh(j, window)));
          Field<Long> requeued =
              field(
                  select(count().cast(SQLDataType.BIGINT))
                      .from(FENCING_APPEND_REQUEUE)
                      .where(FENCING_APPEND_REQUEUE.QUEUE.eq(queue)));
          // a parked job given back waits in requeue as well (at PARKED_RUN_AT): counted there
          Field<Long> parked =
              field(
                  select(count().cast(SQLDataType.BIGINT))
                      .from(FENCING_PARKED)
                      .where(FENCING_PARKED.QUEUE.eq(queue))
                      .andNotExists(
                          selectOne()
                              .from(FENCING_APPEND_REQUEUE)
                              .where(FENCING_APPEND_REQUEUE.JOB_ID.eq(FENCING_PARKED.JOB_ID))));
          Field<Long> running =
              field(
                  select(
                          coalesce(
                              sum(FENCING_APPEND_CLAIM.OPEN).cast(SQLDataType.BIGINT), inline(0L)))
                      .from(FENCING_APPEND_CLAIM)
                      .where(FENCING_APPEND_CLAIM.QUEUE.eq(queue))
                      .and(FENCING_APPEND_CLAIM.LIVE));
          Field<Long> failed =
              field(
                  select(count().cast(SQLDataType.BIGINT))
                      .from(FENCING_APPEND_DONE)
                      .where(FENCING_APPEND_DONE.QUEUE.eq(queue))
                      .and(FENCING_APPEND_DONE.STATUS.eq(inline(JobState.FAILED.dbName()))));
          return d.select(fresh, requeued, parked, running, failed)
              .fetchOne(
                  r ->
                      new QueueDepth(r.value1() + r.value2() + r.value3(), r.value4(), r.value5()));
        });
  }

  /**
   * One batch of the append-only engine: the oldest {@code done} rows past the age (and with no
   * undelivered message), locked {@code SKIP LOCKED}, go with their job, hand-outs and delivered
   * messages; claim rows no longer live and older than the age go too (a late write under one finds
   * the job gone, or a newer hand-out). The archive row is the job's and its end's columns in one
   * JSON object.
   */
  @Override
  public RetentionBatch removeFinished(
      DSLContext dsl, Duration olderThan, @Nullable String queue, int batchSize, boolean archive) {
    FencingAppendDone d = FENCING_APPEND_DONE;
    Field<OffsetDateTime> cutoff = cutoff(olderThan);
    List<Long> ids =
        oldestFinished(
            dsl, d.JOB_ID, d.QUEUE, d.FINISHED_AT, noCondition(), cutoff, queue, batchSize);
    FencingAppendClaim c = FENCING_APPEND_CLAIM;
    List<Long> claims =
        dsl.select(c.ID)
            .from(c)
            .where(c.LIVE.isFalse())
            .and(c.CLAIMED_AT.lt(cutoff))
            .and(queue == null ? noCondition() : c.QUEUE.eq(queue))
            .orderBy(c.CLAIMED_AT)
            .limit(batchSize)
            .forUpdate()
            .skipLocked()
            .fetch(c.ID);
    if (!claims.isEmpty()) {
      dsl.deleteFrom(c).where(c.ID.in(claims)).execute();
    }
    if (ids.isEmpty()) {
      return new RetentionBatch(0, 0, 0);
    }
    FencingAppendJob j = FENCING_APPEND_JOB;
    int archived = 0;
    if (archive) {
      archived =
          Retention.archive(
              dsl,
              j.ID,
              j.QUEUE,
              d.FINISHED_AT,
              field("to_jsonb({0}) || to_jsonb({1})", SQLDataType.JSONB, d, j),
              j.join(d).on(d.JOB_ID.eq(j.ID)),
              j.ID.in(ids));
    }
    int messages = deleteDeliveredMessages(dsl, ids);
    deleteQueueControls(dsl, ids);
    dsl.deleteFrom(FENCING_APPEND_HANDOUT).where(FENCING_APPEND_HANDOUT.JOB_ID.in(ids)).execute();
    dsl.deleteFrom(FENCING_APPEND_OPERATED).where(FENCING_APPEND_OPERATED.JOB_ID.in(ids)).execute();
    dsl.deleteFrom(d).where(d.JOB_ID.in(ids)).execute();
    int jobs = dsl.deleteFrom(j).where(j.ID.in(ids)).execute();
    return new RetentionBatch(jobs, archived, messages);
  }

  @Override
  public List<String> vacuumed() {
    return List.of(
        "fencing_append_job",
        "fencing_append_handout",
        "fencing_append_done",
        "fencing_append_claim",
        "fencing_append_requeue",
        "fencing_append_operated");
  }
}
