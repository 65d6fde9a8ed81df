package dev.fencing.postgres.internal.append;

import static dev.fencing.postgres.internal.jooq.Tables.FENCING_APPEND_DONE;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_APPEND_JOB;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_APPEND_OPERATED;
import static org.jooq.impl.DSL.count;
import static org.jooq.impl.DSL.inline;

import dev.fencing.CancelResult;
import dev.fencing.FencedQueue;
import dev.fencing.JobState;
import dev.fencing.QueueDepth;
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
import dev.fencing.postgres.internal.LeaseSql;
import dev.fencing.postgres.internal.Retention;
import dev.fencing.postgres.internal.jooq.tables.FencingAppendDone;
import dev.fencing.postgres.internal.jooq.tables.FencingAppendOperated;
import jakarta.inject.Inject;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.jooq.DSLContext;
import org.jooq.Record;
import org.jooq.impl.SQLDataType;
import org.jspecify.annotations.Nullable;

/**
 * The operators' view of the append-only engine (see {@link EngineAdmin}). A job's state is put
 * together from its rows ({@link AppendState}); a change appends or removes the rows that make the
 * new state, in one transaction, under the lock a claim or a write of the same job takes ({@link
 * AppendChanges}), and reads the job again (up to five times) when a claim or a write moved it
 * meanwhile.
 */
final class AppendAdmin extends EngineAdmin {

  private static final String ADMIN_FAILED = AppendChanges.ADMIN_FAILED;
  private static final String REQUEUED = AppendChanges.REQUEUED;

  /** How many times a change reads the job again when a claim or a write moved it meanwhile. */
  private static final int TRIES = 5;

  /** A schema of this version has the table of operators' changes. */
  private static final InstallCheck INSTALLED =
      new InstallCheck(
          "select table_name from information_schema.tables where table_schema = ?"
              + " and table_name in ('fencing_append_job', 'fencing_append_operated')",
          FENCING_APPEND_OPERATED.getName(),
          "no fencing_append_operated table");

  private final FencedQueue queue;

  @Inject
  AppendAdmin(Jdbc jdbc, Config config, Retention retention, FencedQueue queue) {
    super(jdbc, config, retention, INSTALLED, new AppendReads());
    this.queue = queue;
  }

  /**
   * The names come from the job table's window index, skipping from one name to the next (one probe
   * per queue); the counts are {@link AppendStore#depth}'s.
   */
  @Override
  public List<QueueSummary> queues(boolean countCompleted) {
    List<String> names = read(AppendReads::queueNames);
    Map<String, Long> completed = new TreeMap<>();
    if (countCompleted) {
      FencingAppendDone d = FENCING_APPEND_DONE;
      read(dsl ->
              dsl.select(d.QUEUE, count().cast(SQLDataType.BIGINT))
                  .from(d)
                  .where(d.STATUS.eq(inline(JobState.COMPLETED.dbName())))
                  .groupBy(d.QUEUE)
                  .fetch())
          .forEach(r -> completed.put(r.value1(), r.value2()));
    }
    List<QueueSummary> summaries = new ArrayList<>();
    for (String name : names) {
      QueueDepth depth = queue.depth(name);
      long done = completed.getOrDefault(name, 0L);
      if (depth.pending() + depth.running() + depth.failed() > 0 || done > 0) {
        summaries.add(
            new QueueSummary(
                name,
                depth.pending(),
                depth.running(),
                depth.failed(),
                countCompleted ? done : null));
      }
    }
    return summaries;
  }

  @Override
  protected Optional<JobDetails> details(DSLContext dsl, long jobId) {
    AppendState state = AppendState.read(dsl, List.of(jobId)).get(jobId);
    if (state == null) {
      return Optional.empty();
    }
    var handouts = AppendHistory.handouts(dsl, jobId);
    FencingAppendOperated o = FENCING_APPEND_OPERATED;
    Record operated =
        dsl.select(o.EVENT, o.EPOCH, o.AT).from(o).where(o.JOB_ID.eq(jobId)).fetchOne();
    FencingAppendDone d = FENCING_APPEND_DONE;
    OffsetDateTime finishedAt =
        dsl.select(d.FINISHED_AT).from(d).where(d.JOB_ID.eq(jobId)).fetchOne(d.FINISHED_AT);

    long operatedEpoch = operated == null ? -1 : operated.get(o.EPOCH);
    List<EpochOwner> history = new ArrayList<>();
    List<Long> settled = new ArrayList<>();
    int expiries = 0;
    long previous = 0;
    OffsetDateTime updatedAt = state.createdAt();
    for (var handout : handouts) {
      long epoch = handout.value1();
      String from = handout.value2();
      if (handout.value3() != null) {
        history.add(new EpochOwner(epoch, handout.value3()));
      }
      if (handout.value4() != null && handout.value4().isAfter(updatedAt)) {
        updatedAt = handout.value4();
      }
      switch (from) {
        case "fail" -> settled.add(previous);
        case "release" -> settled.add(-previous);
        case "expired" -> expiries += previous > operatedEpoch ? 1 : 0;
        default -> {}
      }
      previous = epoch;
    }
    if (state.readyAt() != null && state.doneStatus() == null) {
      switch (String.valueOf(state.reason())) {
        case "fail" -> settled.add(state.requeueEpoch());
        case "release" -> settled.add(-state.requeueEpoch());
        case "expired" -> expiries++;
        default -> {}
      }
    }
    if (state.doneStatus() != null
        && state.doneError() != null
        && state.doneError().startsWith(LeaseSql.LEASE_RAN_OUT)) {
      expiries++; // the expiry that ended it, written by Reclaims: no hand-out of its own
    }
    if (operated != null && operated.get(o.AT).isAfter(updatedAt)) {
      updatedAt = operated.get(o.AT);
    }
    if (finishedAt != null && finishedAt.isAfter(updatedAt)) {
      updatedAt = finishedAt;
    }
    String lastEvent =
        lastEvent(state, operated == null ? null : operated.get(o.EVENT), operatedEpoch);
    if (ADMIN_FAILED.equals(lastEvent) && Cancels.wasCancelled(dsl, jobId)) {
      lastEvent = "cancelled"; // as the other engine's last_event says it
    }
    return Optional.of(
        new JobDetails(
            state.snapshot(),
            expiries,
            lastEvent,
            settled,
            state.createdAt().toInstant(),
            updatedAt.toInstant(),
            AdminSupport.instant(finishedAt),
            history.size() > 16 ? history.subList(history.size() - 16, history.size()) : history,
            AdminSupport.messages(dsl, jobId)));
  }

  /** The last event, in the words of the other engine's {@code last_event}. */
  private static String lastEvent(
      AppendState state, @Nullable String operated, long operatedEpoch) {
    JobState now = state.state();
    if (operated != null && operatedEpoch == state.epoch()) {
      if (operated.equals(ADMIN_FAILED) && now == JobState.FAILED) {
        return ADMIN_FAILED;
      }
      if (operated.equals(REQUEUED) && REQUEUED.equals(state.reason())) {
        return REQUEUED;
      }
    }
    if (state.doneStatus() != null) {
      return state.doneStatus();
    }
    if (state.readyAt() != null && state.reason() != null) {
      return switch (String.valueOf(state.reason())) {
        case "fail" -> "retry";
        case "release" -> "released";
        default -> String.valueOf(state.reason());
      };
    }
    return now == JobState.RUNNING ? "claimed" : "enqueued";
  }

  /**
   * A cancelled job is refused: its cancel's {@code done} row and {@code fencing_cancel} row commit
   * together, so a read that finds it failed finds its cancel too.
   */
  @Override
  public AdminChange requeue(long jobId) {
    Validate.jobId(jobId);
    return change(
        jobId,
        (dsl, state) ->
            Cancels.wasCancelled(dsl, jobId) ? Boolean.FALSE : AppendChanges.requeue(dsl, state),
        AdminSupport.REQUEUE_REFUSAL,
        Cancels.requeueRefusal(jobId));
  }

  @Override
  public AdminChange fail(long jobId, String reason) {
    Validate.jobId(jobId);
    String kept = AdminSupport.reason(reason);
    return change(
        jobId, (dsl, state) -> AppendChanges.fail(dsl, state, kept), AdminSupport.FAIL_REFUSAL);
  }

  /**
   * Cancels the job: the fail's change (under the claim row's lock for a running job, the requeue
   * row's delete for a waiting one, the window's lock for a fresh one), whose {@code operated} row
   * says {@code admin_failed}, and the {@code fencing_cancel} row, in one transaction.
   */
  @Override
  public CancelResult cancel(long jobId, @Nullable String reason) {
    Validate.jobId(jobId);
    String error = Cancels.lastError(reason);
    return retriedTransaction(
        dsl -> {
          for (int i = 0; i < TRIES; i++) {
            AppendState state = AppendState.read(dsl, List.of(jobId)).get(jobId);
            if (state == null) {
              return new CancelResult.NotFound(jobId);
            }
            JobState was = state.state();
            if (was != JobState.PENDING && was != JobState.RUNNING) {
              return Cancels.ended(dsl, jobId, was);
            }
            if (Boolean.TRUE.equals(AppendChanges.fail(dsl, state, error))) {
              long epoch = state.epoch();
              return Cancels.cancelled(
                  dsl,
                  jobId,
                  state.queue(),
                  was,
                  was == JobState.RUNNING ? epoch : null,
                  epoch,
                  reason);
            }
          }
          throw new IllegalStateException(
              "job " + jobId + " kept changing while read " + TRIES + " times; try again");
        });
  }

  /** One change: true if made, false if refused, null if the job moved meanwhile (read again). */
  private interface Change {
    @Nullable Boolean apply(DSLContext dsl, AppendState state);
  }

  private AdminChange change(long jobId, Change change, String refusal) {
    return change(jobId, change, refusal, null);
  }

  /**
   * @param cancelledRefusal the refusal of a change refused because the job was cancelled, or null
   *     if the change does not refuse those
   */
  private AdminChange change(
      long jobId, Change change, String refusal, @Nullable String cancelledRefusal) {
    return transaction(
        dsl -> {
          for (int i = 0; i < TRIES; i++) {
            AppendState state = AppendState.read(dsl, List.of(jobId)).get(jobId);
            if (state == null) {
              return notFound(jobId);
            }
            Boolean made = change.apply(dsl, state);
            if (Boolean.FALSE.equals(made)
                && cancelledRefusal != null
                && Cancels.wasCancelled(dsl, jobId)) {
              return new AdminChange.Refused(jobId, state.state(), cancelledRefusal);
            }
            if (made != null) {
              return outcome(details(dsl, jobId).orElseThrow(), made, refusal);
            }
          }
          throw new IllegalStateException(
              "job " + jobId + " kept changing while read " + TRIES + " times; try again");
        });
  }

  @Override
  public Optional<JobOptionsView> options(long jobId) {
    return options(jobId, FENCING_APPEND_JOB.ID, FENCING_APPEND_JOB.IDEMPOTENCY_KEY);
  }
}
