package dev.fencing.postgres.internal.inplace;

import static dev.fencing.postgres.internal.jooq.Tables.FENCING_JOB;
import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.inline;

import dev.fencing.CommitOutcome;
import dev.fencing.FencedOutcome;
import dev.fencing.JobConsumer.Completion;
import dev.fencing.JobSnapshot;
import dev.fencing.JobState;
import dev.fencing.Lease;
import dev.fencing.OutboxMessage;
import dev.fencing.QueueDepth;
import dev.fencing.Renewal;
import dev.fencing.postgres.internal.EngineStore;
import dev.fencing.postgres.internal.Jdbc;
import dev.fencing.postgres.internal.JobStore;
import dev.fencing.postgres.internal.Notifier;
import dev.fencing.postgres.internal.OptionRows;
import dev.fencing.postgres.internal.Retention;
import dev.fencing.postgres.internal.RetentionBatch;
import dev.fencing.postgres.internal.jooq.tables.FencingJob;
import jakarta.inject.Inject;
import jakarta.inject.Provider;
import jakarta.inject.Singleton;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Optional;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.QueryPart;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;
import org.jspecify.annotations.Nullable;

/**
 * The update-in-place engine behind {@link JobStore}: one row per job in {@code fencing_job}, one
 * statement per claim (a batch included), one compare-and-set per commit or per batch of commits.
 * Leases are set and judged with {@code now()} of the database.
 *
 * <p>Claimable work is served by priority, then oldest-ready-first: a pending job is ready since
 * its {@code run_at}, a job whose lease ran out since its {@code lease_expires_at}; every claim
 * counts an attempt, and a job whose lease runs out after its last attempt ends {@code failed}
 * instead of being handed out again (see {@link Claims}).
 *
 * <p>Every statement commits on its own, whether or not the data source's connections are in
 * autocommit mode (see {@link Jdbc}).
 */
@Singleton
public final class InPlaceStore extends EngineStore {

  private static final JobTable JOBS =
      new JobTable(
          FENCING_JOB,
          FENCING_JOB.ID,
          FENCING_JOB.QUEUE,
          FENCING_JOB.PAYLOAD,
          FENCING_JOB.MAX_ATTEMPTS,
          FENCING_JOB.IDEMPOTENCY_KEY,
          FENCING_JOB.ENQUEUE_TOKEN,
          List.of(),
          List.of());

  private final Commits commits;
  private final Renewals renewals;
  private final Notifier notifier;

  @Inject
  InPlaceStore(
      Jdbc jdbc,
      Claims claims,
      Commits commits,
      Renewals renewals,
      Notifier notifier,
      Provider<InPlaceAdmin> admin) {
    super(JOBS, jdbc, claims::claimBatch, claims.slotTests(), admin);
    this.commits = commits;
    this.renewals = renewals;
    this.notifier = notifier;
  }

  /** A job with a priority is parked; one with a run time only waits on its row's run_at. */
  @Override
  public QueryPart optionRows(Field<String> queue) {
    return OptionRows.parked(queue);
  }

  @Override
  public Field<OffsetDateTime> runAt() {
    return FENCING_JOB.RUN_AT;
  }

  @Override
  public List<Renewal> renewAll(List<Lease> leases, Duration leaseLength) {
    return renewals.renewAll(leases, leaseLength);
  }

  @Override
  public FencedOutcome.Accepted complete(Lease lease, String result, List<OutboxMessage> messages) {
    return commits.complete(lease, result, messages);
  }

  @Override
  public List<CommitOutcome> completeAll(List<Completion> completions) {
    return commits.completeAll(completions);
  }

  @Override
  public FencedOutcome.Accepted fail(Lease lease, String error, Duration retryDelay) {
    FencedOutcome.Accepted accepted = commits.fail(lease, error, retryDelay);
    if (retryDelay.isZero()) {
      jobReturned(lease.jobId());
    }
    return accepted;
  }

  @Override
  public FencedOutcome.Accepted failFinally(Lease lease, String error) {
    return commits.failFinally(lease, error);
  }

  @Override
  public FencedOutcome.Accepted release(Lease lease) {
    FencedOutcome.Accepted accepted = commits.release(lease);
    jobReturned(lease.jobId());
    return accepted;
  }

  /**
   * Notifies the queue of job {@code jobId} if the job is pending (given back by release or by a
   * failure without delay). Best effort, after the commit: if it fails, waiters find the job at
   * their next poll.
   */
  private void jobReturned(long jobId) {
    notifier.afterCommit(
        "job " + jobId + " given back",
        FENCING_JOB,
        FENCING_JOB.QUEUE,
        FENCING_JOB.ID.eq(jobId).and(FENCING_JOB.STATUS.eq(inline(JobState.PENDING.dbName()))));
  }

  @Override
  public Optional<JobSnapshot> find(long jobId) {
    return Optional.ofNullable(read(dsl -> InPlaceRow.read(dsl, jobId))).map(InPlaceRow::snapshot);
  }

  /** Three counts in one statement, each on its state's partial index, never on completed rows. */
  @Override
  public QueueDepth depth(String queue) {
    return read(
        dsl ->
            dsl.select(
                    counted(queue, JobState.PENDING),
                    counted(queue, JobState.RUNNING),
                    counted(queue, JobState.FAILED))
                .fetchOne(r -> new QueueDepth(r.value1(), r.value2(), r.value3())));
  }

  private static Field<Long> counted(String queue, JobState state) {
    FencingJob j = FENCING_JOB;
    return DSL.field(
        DSL.select(DSL.count().cast(SQLDataType.BIGINT))
            .from(j)
            .where(j.QUEUE.eq(queue))
            .and(j.STATUS.eq(inline(state.dbName()))));
  }

  /**
   * Oldest first by {@code fencing_job_finished_ix}; the archive row is the job's row as one JSON
   * object.
   */
  @Override
  public RetentionBatch removeFinished(
      DSLContext dsl, Duration olderThan, @Nullable String queue, int batchSize, boolean archive) {
    FencingJob j = FENCING_JOB;
    // the same predicate as fencing_job_finished_ix, with inline values, so the planner uses it
    List<Long> ids =
        oldestFinished(
            dsl,
            j.ID,
            j.QUEUE,
            j.FINISHED_AT,
            j.STATUS.in(inline(JobState.COMPLETED.dbName()), inline(JobState.FAILED.dbName())),
            cutoff(olderThan),
            queue,
            batchSize);
    if (ids.isEmpty()) {
      return new RetentionBatch(0, 0, 0);
    }
    int archived = 0;
    if (archive) {
      FencingJob x = j.as("x");
      archived =
          Retention.archive(
              dsl,
              x.ID,
              x.QUEUE,
              x.FINISHED_AT,
              field("to_jsonb({0})", SQLDataType.JSONB, x),
              x,
              x.ID.in(ids));
    }
    int messages = deleteDeliveredMessages(dsl, ids);
    deleteQueueControls(dsl, ids);
    int jobs = dsl.deleteFrom(j).where(j.ID.in(ids)).execute();
    return new RetentionBatch(jobs, archived, messages);
  }

  @Override
  public List<String> vacuumed() {
    return List.of("fencing_job");
  }
}
