package dev.fencing.postgres.internal.inplace;

import static dev.fencing.postgres.internal.jooq.Tables.FENCING_JOB;
import static org.jooq.impl.DSL.currentOffsetDateTime;
import static org.jooq.impl.DSL.inline;
import static org.jooq.impl.DSL.val;

import dev.fencing.CancelResult;
import dev.fencing.JobState;
import dev.fencing.internal.Validate;
import dev.fencing.postgres.admin.AdminChange;
import dev.fencing.postgres.admin.EpochOwner;
import dev.fencing.postgres.admin.JobDetails;
import dev.fencing.postgres.admin.JobOptionsView;
import dev.fencing.postgres.admin.QueueSummary;
import dev.fencing.postgres.internal.AdminSupport;
import dev.fencing.postgres.internal.Cancels;
import dev.fencing.postgres.internal.Config;
import dev.fencing.postgres.internal.EngineAdmin;
import dev.fencing.postgres.internal.Jdbc;
import dev.fencing.postgres.internal.Retention;
import dev.fencing.postgres.internal.jooq.tables.FencingJob;
import dev.fencing.postgres.internal.jooq.tables.records.FencingJobRecord;
import jakarta.inject.Inject;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Function;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Record;
import org.jooq.UpdateSetFirstStep;
import org.jooq.UpdateSetMoreStep;
import org.jspecify.annotations.Nullable;

/**
 * The operators' view of the update-in-place engine (see {@link EngineAdmin}). Every change is a
 * conditional UPDATE on the job's state (a cancel and a requeue lock the row first, to read it with
 * what a cancel wrote beside it), so it cannot race a claim or a commit into a state it would have
 * refused; the epoch is never changed here, so a later claim still takes a larger one.
 */
final class InPlaceAdmin extends EngineAdmin {

  /** The last event of a cancelled job: no write under a lease leaves it. */
  private static final String CANCELLED = "cancelled";

  /** A schema of this version has the job table's owners column. */
  private static final InstallCheck INSTALLED =
      new InstallCheck(
          "select column_name from information_schema.columns"
              + " where table_schema = ? and table_name = 'fencing_job'",
          FENCING_JOB.OWNERS.getName(),
          "no owners column");

  @Inject
  InPlaceAdmin(Jdbc jdbc, Config config, Retention retention) {
    super(jdbc, config, retention, INSTALLED, new InPlaceReads());
  }

  /**
   * Returns every queue that has pending, running or failed jobs, by name. The names are found by
   * skipping through the three partial indexes (one probe per queue and state), never by reading
   * completed rows; {@code countCompleted} adds completed counts by one scan of the table.
   */
  @Override
  public List<QueueSummary> queues(boolean countCompleted) {
    return read(
        dsl -> {
          Map<String, long[]> counts = new TreeMap<>();
          for (String queue : queueNames(dsl)) {
            long[] n = new long[4];
            n[3] = -1;
            counts.put(queue, n);
            var depth =
                dsl.resultQuery(
                        "select"
                            + " (select count(*) from {0} where queue = {1} and status = 'pending'),"
                            + " (select count(*) from {0} where queue = {1} and status = 'running'),"
                            + " (select count(*) from {0} where queue = {1} and status = 'failed')",
                        FENCING_JOB, val(queue))
                    .fetchOne();
            for (int i = 0; i < 3; i++) {
              n[i] = depth.get(i, Long.class);
            }
          }
          if (countCompleted) {
            countCompleted(dsl, counts);
          }
          List<QueueSummary> summaries = new ArrayList<>();
          counts.forEach(
              (q, n) ->
                  summaries.add(new QueueSummary(q, n[0], n[1], n[2], n[3] < 0 ? null : n[3])));
          return summaries;
        });
  }

  /**
   * Distinct queue names of unfinished and failed jobs: a recursive probe per partial index, each
   * step the next name above the last (a loose index scan), so the cost grows with the number of
   * queues, not of jobs.
   */
  private static List<String> queueNames(DSLContext dsl) {
    String step =
        "(select queue from {0} where status = '%s' and queue > n.q order by queue limit 1)";
    String first = "(select queue from {0} where status = '%s' order by queue limit 1)";
    StringBuilder sql = new StringBuilder("with recursive ");
    List<String> states = List.of("pending", "running", "failed");
    for (int i = 0; i < states.size(); i++) {
      String s = states.get(i);
      sql.append(i == 0 ? "" : ", ")
          .append("n")
          .append(i)
          .append("(q) as (select ")
          .append(first.formatted(s))
          .append(" union all select ")
          .append(step.formatted(s))
          .append(" from n")
          .append(i)
          .append(" n where n.q is not null)");
    }
    sql.append(" select q from n0 where q is not null union select q from n1 where q is not null")
        .append(" union select q from n2 where q is not null order by 1");
    return dsl.resultQuery(sql.toString(), FENCING_JOB).fetch(0, String.class);
  }

  private static void countCompleted(DSLContext dsl, Map<String, long[]> counts) {
    dsl.resultQuery(
            "select queue, count(*) from {0} where status = 'completed' group by queue",
            FENCING_JOB)
        .forEach(
            r -> {
              long[] n = counts.computeIfAbsent(r.get(0, String.class), q -> new long[4]);
              n[3] = r.get(1, Long.class);
            });
    counts.values().forEach(n -> n[3] = Math.max(n[3], 0));
  }

  /** The job with its epoch history and outbox messages, if there is one with that id. */
  @Override
  protected Optional<JobDetails> details(DSLContext dsl, long jobId) {
    FencingJobRecord r = InPlaceRow.read(dsl, jobId);
    if (r == null) {
      return Optional.empty();
    }
    return Optional.of(
        new JobDetails(
            InPlaceRow.snapshot(r),
            r.getExpiries(),
            r.getLastEvent(),
            Arrays.asList(r.getSettledEpochs()),
            r.getCreatedAt().toInstant(),
            r.getUpdatedAt().toInstant(),
            AdminSupport.instant(r.getFinishedAt()),
            history(r.getEpoch(), r.getOwners()),
            AdminSupport.messages(dsl, jobId)));
  }

  /**
   * Element i of {@code owners} (oldest first) held epoch {@code epoch - owners.length + 1 + i}.
   */
  private static List<EpochOwner> history(long epoch, String[] owners) {
    List<EpochOwner> history = new ArrayList<>(owners.length);
    for (int i = 0; i < owners.length; i++) {
      history.add(new EpochOwner(epoch - owners.length + 1 + i, owners[i]));
    }
    return history;
  }

  /**
   * Puts a failed job back to pending, claimable now, with its attempts and expiries counted from
   * zero. The epoch stays: the next claim bumps it, so it is larger than any lease handed out
   * before. A running, pending or completed job is refused: a completed job's result and outbox
   * messages already count, and running it again would repeat its effects.
   */
  @Override
  public AdminChange requeue(long jobId) {
    Validate.jobId(jobId);
    FencingJob j = FENCING_JOB;
    return transaction(
        dsl -> {
          // locked first: a cancel committing meanwhile is then seen with the failed row it wrote
          dsl.select(j.ID).from(j).where(j.ID.eq(jobId)).forNoKeyUpdate().fetch();
          if (Cancels.wasCancelled(dsl, jobId)) {
            return new AdminChange.Refused(jobId, JobState.FAILED, Cancels.requeueRefusal(jobId));
          }
          return change(
              dsl,
              jobId,
              "requeued",
              j.STATUS.eq(inline(JobState.FAILED.dbName())),
              update ->
                  update
                      .set(j.STATUS, inline(JobState.PENDING.dbName()))
                      .set(j.RUN_AT, currentOffsetDateTime())
                      .set(j.ATTEMPTS, inline(0))
                      .set(j.EXPIRIES, inline(0))
                      .set(j.LEASE_EXPIRES_AT, (OffsetDateTime) null)
                      .set(j.FINISHED_AT, (OffsetDateTime) null),
              AdminSupport.REQUEUE_REFUSAL);
        });
  }

  /**
   * Ends a pending or running job failed with {@code reason}. A running job's holder is fenced off:
   * its later complete, fail, renew or release finds the job no longer running and is refused; its
   * {@code last_event} ({@code admin_failed}) is one no retried commit of the holder's can take for
   * its own.
   *
   * @throws IllegalArgumentException if {@code reason} is blank; nothing is written
   */
  @Override
  public AdminChange fail(long jobId, String reason) {
    Validate.jobId(jobId);
    String kept = AdminSupport.reason(reason);
    return transaction(
        dsl ->
            change(
                dsl,
                jobId,
                "admin_failed",
                UNFINISHED,
                update -> failed(update, kept),
                AdminSupport.FAIL_REFUSAL));
  }

  /** A pending or running job. */
  private static final Condition UNFINISHED =
      FENCING_JOB.STATUS.in(inline(JobState.PENDING.dbName()), inline(JobState.RUNNING.dbName()));

  /** What a fail and a cancel set: failed now with {@code error}, its lease (if any) ended. */
  private static UpdateSetMoreStep<FencingJobRecord> failed(
      UpdateSetFirstStep<FencingJobRecord> update, String error) {
    FencingJob j = FENCING_JOB;
    return update
        .set(j.STATUS, inline(JobState.FAILED.dbName()))
        .set(j.LAST_ERROR, error)
        .set(j.LEASE_EXPIRES_AT, (OffsetDateTime) null)
        .set(j.FINISHED_AT, currentOffsetDateTime());
  }

  /**
   * Cancels the job: under its row's lock (a commit's update of the row waits, then finds it no
   * longer running), the fail's change with {@code last_event} {@code cancelled}, which no retried
   * commit takes for its own, and the {@code fencing_cancel} row.
   */
  @Override
  public CancelResult cancel(long jobId, @Nullable String reason) {
    Validate.jobId(jobId);
    String error = Cancels.lastError(reason);
    FencingJob j = FENCING_JOB;
    return retriedTransaction(
        dsl -> {
          Record row =
              dsl.select(j.STATUS, j.EPOCH, j.QUEUE)
                  .from(j)
                  .where(j.ID.eq(jobId))
                  .forNoKeyUpdate()
                  .fetchOne();
          if (row == null) {
            return new CancelResult.NotFound(jobId);
          }
          JobState was = JobState.fromDbName(row.get(j.STATUS));
          if (was != JobState.PENDING && was != JobState.RUNNING) {
            return Cancels.ended(dsl, jobId, was);
          }
          failed(dsl.update(j), error)
              .set(j.LAST_EVENT, inline(CANCELLED))
              .set(j.UPDATED_AT, currentOffsetDateTime())
              .where(j.ID.eq(jobId))
              .execute();
          long epoch = row.get(j.EPOCH);
          return Cancels.cancelled(
              dsl,
              jobId,
              row.get(j.QUEUE),
              was,
              was == JobState.RUNNING ? epoch : null,
              epoch,
              reason);
        });
  }

  /**
   * One conditional update of the job's row, from a state {@code from} matches: {@code sets}, then
   * {@code event} as its last event; when it matched no row, says why from the row as it is now.
   */
  private AdminChange change(
      DSLContext dsl,
      long jobId,
      String event,
      Condition from,
      Function<UpdateSetFirstStep<FencingJobRecord>, UpdateSetMoreStep<FencingJobRecord>> sets,
      String refusal) {
    FencingJob j = FENCING_JOB;
    int updated =
        sets.apply(dsl.update(j))
            .set(j.LAST_EVENT, inline(event))
            .set(j.UPDATED_AT, currentOffsetDateTime())
            .where(j.ID.eq(jobId))
            .and(from)
            .execute();
    Optional<JobDetails> now = details(dsl, jobId);
    if (now.isEmpty()) {
      return notFound(jobId);
    }
    return outcome(now.get(), updated == 1, refusal);
  }

  @Override
  public Optional<JobOptionsView> options(long jobId) {
    return options(jobId, FENCING_JOB.ID, FENCING_JOB.IDEMPOTENCY_KEY);
  }
}
