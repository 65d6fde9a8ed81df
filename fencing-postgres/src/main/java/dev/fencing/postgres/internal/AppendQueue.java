package dev.fencing.postgres.internal;

import static dev.fencing.postgres.internal.jooq.Tables.FENCING_APPEND_CLAIM;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_APPEND_DONE;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_APPEND_JOB;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_APPEND_OPERATED;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_APPEND_REQUEUE;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_APPEND_WINDOW;
import static org.jooq.impl.DSL.coalesce;
import static org.jooq.impl.DSL.count;
import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.inline;
import static org.jooq.impl.DSL.not;
import static org.jooq.impl.DSL.or;
import static org.jooq.impl.DSL.row;
import static org.jooq.impl.DSL.select;
import static org.jooq.impl.DSL.selectOne;
import static org.jooq.impl.DSL.sum;
import static org.jooq.impl.DSL.val;

import dev.fencing.CommitOutcome;
import dev.fencing.Enqueued;
import dev.fencing.FencedOffException;
import dev.fencing.FencedOutcome;
import dev.fencing.FencedQueue;
import dev.fencing.Job;
import dev.fencing.JobSnapshot;
import dev.fencing.JobState;
import dev.fencing.KeyedJob;
import dev.fencing.Lease;
import dev.fencing.OutboxMessage;
import dev.fencing.QueueDepth;
import dev.fencing.Renewal;
import dev.fencing.internal.Batches;
import dev.fencing.internal.Validate;
import dev.fencing.postgres.internal.jooq.tables.FencingAppendJob;
import dev.fencing.postgres.internal.jooq.tables.FencingAppendWindow;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.IntFunction;
import org.jooq.Field;
import org.jooq.Record4;
import org.jooq.impl.SQLDataType;

/**
 * The PostgreSQL queue on the append-only engine (docs/ENGINE.md): jobs are inserted once and never
 * updated; a claim appends one claim row per batch and one hand-out per job, a commit appends the
 * job's {@code done} row under a compare-and-set on the claim row. The rules are those of {@link
 * FencedQueue}, as on {@link JooqQueue}: a token per job that only goes up, a compare-and-set on
 * owner and epoch for every write of a lease, oldest ready work first, attempts counted per claim.
 *
 * <p>Enqueueing, signals of new work and their settings are shared with {@link JooqQueue}.
 */
public final class AppendQueue implements FencedQueue {

  private final Jdbc jdbc;
  private final JooqQueue shared;
  private final AppendClaims claims;
  private final AppendWrites writes;
  private final JsonProbe probe;

  @Inject
  AppendQueue(
      Jdbc jdbc, JooqQueue shared, AppendClaims claims, AppendWrites writes, JsonProbe probe) {
    this.jdbc = jdbc;
    this.shared = shared;
    this.claims = claims;
    this.writes = writes;
    this.probe = probe;
  }

  @Override
  public long enqueue(String queue, String payload) {
    return shared.enqueue(queue, payload);
  }

  @Override
  public List<Long> enqueueAll(String queue, List<String> payloads) {
    return shared.enqueueAll(queue, payloads);
  }

  @Override
  public List<Enqueued> enqueueKeyed(String queue, List<KeyedJob> jobs) {
    return shared.enqueueKeyed(queue, jobs);
  }

  @Override
  public Optional<Job> claim(String queue, String owner, Duration leaseLength) {
    List<Job> jobs = claimBatch(queue, owner, leaseLength, 1);
    return jobs.isEmpty() ? Optional.empty() : Optional.of(jobs.getFirst());
  }

  @Override
  public List<Job> claimBatch(String queue, String owner, Duration leaseLength, int batchSize) {
    Validate.identifier("queue", queue);
    Validate.owner(owner);
    Validate.leaseLength(leaseLength);
    Validate.batchSize(batchSize);
    return claims.claimBatch(queue, owner, leaseLength, batchSize);
  }

  @Override
  public Lease renew(Lease lease, Duration leaseLength) {
    Objects.requireNonNull(lease, "lease");
    return switch (renewAll(List.of(lease), leaseLength).getFirst()) {
      case Renewal.Renewed renewed -> renewed.lease();
      case Renewal.Lost lost -> throw new FencedOffException(lost.refusal());
    };
  }

  @Override
  public List<Renewal> renewAll(List<Lease> leases, Duration leaseLength) {
    Objects.requireNonNull(leases, "leases");
    Validate.leaseLength(leaseLength);
    List<AppendWrites.Op> ops = new ArrayList<>(leases.size());
    for (int i = 0; i < leases.size(); i++) {
      Lease lease = Objects.requireNonNull(leases.get(i), "leases[" + i + "]");
      ops.add(
          new AppendWrites.Op(
              lease,
              AppendWrites.Kind.RENEW,
              null,
              List.of(),
              null,
              leaseLength.toNanos() / 1_000));
    }
    if (ops.isEmpty()) {
      return List.of();
    }
    List<AppendWrites.Outcome> outcomes = writes.write(ops);
    List<Renewal> renewals = new ArrayList<>(outcomes.size());
    for (int i = 0; i < outcomes.size(); i++) {
      AppendWrites.Outcome outcome = outcomes.get(i);
      renewals.add(
          outcome.renewed() != null
              ? new Renewal.Renewed(outcome.renewed())
              : new Renewal.Lost(leases.get(i), Objects.requireNonNull(outcome.refused())));
    }
    return renewals;
  }

  @Override
  public FencedOutcome.Accepted complete(Lease lease, String result) {
    return complete(lease, result, List.of());
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
    return completeAll(completions, Commits.BATCH_NAMES);
  }

  private List<CommitOutcome> completeAll(List<Completion> completions, IntFunction<String> names) {
    return Commits.completeAll(
        completions,
        names,
        probe,
        items -> {
          List<AppendWrites.Op> ops = new ArrayList<>(items.size());
          for (int i : items) {
            Completion completion = completions.get(i);
            ops.add(
                new AppendWrites.Op(
                    completion.lease(),
                    AppendWrites.Kind.COMPLETE,
                    completion.result(),
                    completion.messages(),
                    null,
                    0));
          }
          List<AppendWrites.Outcome> written = writes.write(ops);
          Map<Integer, CommitOutcome> outcomes = new HashMap<>();
          for (int k = 0; k < items.size(); k++) {
            AppendWrites.Outcome outcome = written.get(k);
            outcomes.put(
                items.get(k), outcome.accepted() != null ? outcome.accepted() : outcome.refused());
          }
          return outcomes;
        });
  }

  @Override
  public FencedOutcome.Accepted fail(Lease lease, String error, Duration retryDelay) {
    Objects.requireNonNull(lease, "lease");
    Objects.requireNonNull(error, "error");
    Validate.delay("retryDelay", retryDelay);
    return one(
        new AppendWrites.Op(
            lease,
            AppendWrites.Kind.FAIL,
            null,
            List.of(),
            Text.storable(error, Commits.MAX_ERROR_LENGTH),
            retryDelay.toNanos() / 1_000));
  }

  @Override
  public FencedOutcome.Accepted release(Lease lease) {
    Objects.requireNonNull(lease, "lease");
    return one(new AppendWrites.Op(lease, AppendWrites.Kind.RELEASE, null, List.of(), null, 0));
  }

  private FencedOutcome.Accepted one(AppendWrites.Op op) {
    AppendWrites.Outcome outcome = writes.write(List.of(op)).getFirst();
    if (outcome.accepted() == null) {
      throw new FencedOffException(Objects.requireNonNull(outcome.refused()));
    }
    return outcome.accepted();
  }

  @Override
  public boolean awaitWork(String queue, Duration timeout) throws InterruptedException {
    return shared.awaitWork(queue, timeout);
  }

  @Override
  public boolean signalsWork() {
    return shared.signalsWork();
  }

  @Override
  public Optional<JobSnapshot> find(long jobId) {
    Validate.jobId(jobId);
    return Optional.ofNullable(
            jdbc.guarded(() -> jdbc.run(c -> AppendState.read(jdbc.on(c), List.of(jobId))))
                .get(jobId))
        .map(AppendState::snapshot);
  }

  /**
   * Pending: jobs not yet handed out (those of the window after its position, and of later windows)
   * plus the requeued; running: the open jobs of live claim rows; failed: the failed {@code done}
   * rows. One statement.
   */
  @Override
  public QueueDepth depth(String queue) {
    Validate.identifier("queue", queue);
    FencingAppendJob j = FENCING_APPEND_JOB;
    FencingAppendWindow w = FENCING_APPEND_WINDOW;
    return jdbc.guarded(
        () ->
            jdbc.run(
                c -> {
                  var d = jdbc.on(c);
                  Record4<String, String, Long, Long> window =
                      d.select(w.LO, w.HI, w.AFTER_XID, w.AFTER_ID)
                          .from(w)
                          .where(w.QUEUE.eq(queue))
                          .fetchOne();
                  // a fresh job failed by an operator is in done; one requeued since, in requeue
                  var operated =
                      selectOne()
                          .from(FENCING_APPEND_OPERATED)
                          .where(FENCING_APPEND_OPERATED.JOB_ID.eq(j.ID));
                  Field<Long> fresh;
                  if (window == null) {
                    fresh =
                        field(
                            select(count().cast(SQLDataType.BIGINT))
                                .from(j)
                                .where(j.QUEUE.eq(queue))
                                .andNotExists(operated));
                  } else {
                    String lo = window.value1();
                    String hi = window.value2();
                    fresh =
                        field(
                            select(count().cast(SQLDataType.BIGINT))
                                .from(j)
                                .where(j.QUEUE.eq(queue))
                                .and(
                                    j.XID.ge(
                                        AppendClaims.snapshotBound("pg_snapshot_xmin", val(lo))))
                                .and(not(AppendClaims.visible(j.XID, val(lo))))
                                .and(
                                    or(
                                        not(AppendClaims.visible(j.XID, val(hi))),
                                        row(j.XID, j.ID).gt(window.value3(), window.value4())))
                                .andNotExists(operated));
                  }
                  Field<Long> requeued =
                      field(
                          select(count().cast(SQLDataType.BIGINT))
                              .from(FENCING_APPEND_REQUEUE)
                              .where(FENCING_APPEND_REQUEUE.QUEUE.eq(queue)));
                  Field<Long> running =
                      field(
                          select(
                                  coalesce(
                                      sum(FENCING_APPEND_CLAIM.OPEN).cast(SQLDataType.BIGINT),
                                      inline(0L)))
                              .from(FENCING_APPEND_CLAIM)
                              .where(FENCING_APPEND_CLAIM.QUEUE.eq(queue))
                              .and(FENCING_APPEND_CLAIM.LIVE));
                  Field<Long> failed =
                      field(
                          select(count().cast(SQLDataType.BIGINT))
                              .from(FENCING_APPEND_DONE)
                              .where(FENCING_APPEND_DONE.QUEUE.eq(queue))
                              .and(
                                  FENCING_APPEND_DONE.STATUS.eq(inline(JobState.FAILED.dbName()))));
                  return d.select(fresh, requeued, running, failed)
                      .fetchOne(
                          r -> new QueueDepth(r.value1() + r.value2(), r.value3(), r.value4()));
                }));
  }
}
