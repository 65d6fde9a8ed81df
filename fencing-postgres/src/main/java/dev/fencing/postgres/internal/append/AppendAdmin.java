package dev.fencing.postgres.internal.append;

import static dev.fencing.postgres.internal.jooq.Tables.FENCING_APPEND_CLAIM;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_APPEND_DONE;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_APPEND_HANDOUT;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_APPEND_JOB;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_APPEND_OPERATED;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_APPEND_REQUEUE;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_APPEND_WINDOW;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_PARKED;
import static org.jooq.impl.DSL.count;
import static org.jooq.impl.DSL.exists;
import static org.jooq.impl.DSL.inline;
import static org.jooq.impl.DSL.select;
import static org.jooq.impl.DSL.selectOne;
import static org.jooq.impl.DSL.unnest;
import static org.jooq.impl.DSL.val;

import dev.fencing.CancelResult;
import dev.fencing.FencedQueue;
import dev.fencing.JobState;
import dev.fencing.QueueDepth;
import dev.fencing.internal.Validate;
import dev.fencing.postgres.AdminChange;
import dev.fencing.postgres.EpochOwner;
import dev.fencing.postgres.JobDetails;
import dev.fencing.postgres.JobOptionsView;
import dev.fencing.postgres.JobPage;
import dev.fencing.postgres.JobRow;
import dev.fencing.postgres.JobSearch;
import dev.fencing.postgres.QueueActivity;
import dev.fencing.postgres.QueueSummary;
import dev.fencing.postgres.internal.AdminSupport;
import dev.fencing.postgres.internal.Cancels;
import dev.fencing.postgres.internal.Config;
import dev.fencing.postgres.internal.EngineAdmin;
import dev.fencing.postgres.internal.Jdbc;
import dev.fencing.postgres.internal.LeaseSql;
import dev.fencing.postgres.internal.Retention;
import dev.fencing.postgres.internal.jooq.tables.FencingAppendClaim;
import dev.fencing.postgres.internal.jooq.tables.FencingAppendDone;
import dev.fencing.postgres.internal.jooq.tables.FencingAppendHandout;
import dev.fencing.postgres.internal.jooq.tables.FencingAppendJob;
import dev.fencing.postgres.internal.jooq.tables.FencingAppendOperated;
import dev.fencing.postgres.internal.jooq.tables.FencingAppendRequeue;
import dev.fencing.postgres.internal.jooq.tables.FencingAppendWindow;
import dev.fencing.postgres.internal.jooq.tables.FencingParked;
import jakarta.inject.Inject;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Record;
import org.jooq.Record1;
import org.jooq.Record4;
import org.jooq.Select;
import org.jooq.Table;
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
    super(jdbc, config, retention, INSTALLED);
    this.queue = queue;
  }

  /**
   * The names come from the job table's window index, skipping from one name to the next (one probe
   * per queue); the counts are {@link AppendStore#depth}'s.
   */
  @Override
  public List<QueueSummary> queues(boolean countCompleted) {
    List<String> names = read(AppendAdmin::queueNames);
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
  public Optional<JobDetails> job(long jobId) {
    Validate.jobId(jobId);
    return read(dsl -> details(dsl, jobId));
  }

  private Optional<JobDetails> details(DSLContext dsl, long jobId) {
    AppendState state = AppendState.read(dsl, List.of(jobId)).get(jobId);
    if (state == null) {
      return Optional.empty();
    }
    FencingAppendHandout h = FENCING_APPEND_HANDOUT;
    FencingAppendClaim c = FENCING_APPEND_CLAIM;
    List<Record4<Long, String, String, OffsetDateTime>> handouts =
        dsl.select(h.EPOCH, h.CAME_FROM, c.OWNER, c.CLAIMED_AT)
            .from(h)
            .leftJoin(c)
            .on(c.ID.eq(h.CLAIM_ID))
            .where(h.JOB_ID.eq(jobId))
            .orderBy(h.EPOCH)
            .fetch();
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
        details(
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

  /**
   * The page's ids: of pending jobs from the requeue and parked tables and each queue's window; of
   * running ones from the live claims; of {@link #FEW few} failed ones from the done table's index
   * of failed jobs; else by the job table's primary key read backwards (or the key's unique index),
   * the state told from the done, requeue, parked and hand-out rows by their primary keys. Then
   * each job of the page as {@link #job} puts it together ({@link AppendState}).
   */
  @Override
  public JobPage jobs(JobSearch search) {
    FencingAppendJob j = FENCING_APPEND_JOB;
    FencingAppendDone d = FENCING_APPEND_DONE;
    Condition where = matching(search, j.QUEUE, j.IDEMPOTENCY_KEY, j.ID);
    JobState state = search.state();
    if (state != null) {
      where = where.and(inState(j, d, state));
    }
    Condition found = where;
    int n = search.limit() + 1;
    return read(
        dsl -> {
          List<Long> ids =
              switch (search.key() == null && state != null ? state : JobState.COMPLETED) {
                case PENDING -> newest(dsl, pending(dsl, search), n);
                case RUNNING -> newest(dsl, running(search, found), n);
                case FAILED ->
                    few(dsl, d, failed(search))
                        ? newest(dsl, select(d.JOB_ID).from(d).where(failed(search)), n)
                        : byKey(dsl, found, n);
                case COMPLETED -> byKey(dsl, found, n);
              };
          return page(rows(dsl, ids), search.limit());
        });
  }

  /**
   * The newest {@code n} jobs {@code found} holds, by the job table's primary key read backwards.
   */
  private static List<Long> byKey(DSLContext dsl, Condition found, int n) {
    FencingAppendJob j = FENCING_APPEND_JOB;
    FencingAppendDone d = FENCING_APPEND_DONE;
    return dsl.select(j.ID)
        .from(j)
        .leftJoin(d)
        .on(d.JOB_ID.eq(j.ID))
        .where(found)
        .orderBy(j.ID.desc())
        .limit(n)
        .fetch(j.ID);
  }

  /** The jobs {@code ids} that still exist, newest first, each as {@link #job} puts it together. */
  private static List<JobRow> rows(DSLContext dsl, List<Long> ids) {
    FencingAppendJob j = FENCING_APPEND_JOB;
    FencingAppendDone d = FENCING_APPEND_DONE;
    var extra =
        dsl.select(j.ID, j.IDEMPOTENCY_KEY, d.FINISHED_AT)
            .from(j)
            .leftJoin(d)
            .on(d.JOB_ID.eq(j.ID))
            .where(j.ID.in(ids))
            .fetchMap(j.ID);
    Map<Long, AppendState> states = AppendState.read(dsl, ids);
    Map<Long, Options> options = options(dsl, ids);
    List<JobRow> rows = new ArrayList<>(ids.size());
    for (long id : ids) {
      AppendState state = states.get(id);
      if (state == null) {
        continue; // purged since the first statement
      }
      var job = state.snapshot();
      Options o = options.getOrDefault(id, Options.NONE);
      rows.add(
          new JobRow(
              id,
              job.queue(),
              job.state(),
              extra.get(id).value2(),
              job.epoch(),
              job.owner(),
              job.attempts(),
              job.runAt(),
              AdminSupport.instant(extra.get(id).value3()),
              job.lastError(),
              o.priority(),
              o.group()));
    }
    return rows;
  }

  /**
   * The pending jobs {@code search} may find: requeued and parked ones by their tables' queue
   * indexes, fresh ones by each queue's window (the job table's window index), never reading a
   * finished job. A parked job given back has both a requeue and a parked row; a fresh one has
   * neither (a job enqueued with options has an operated row, which the window skips), so only the
   * first two are told apart.
   */
  private static Select<Record1<Long>> pending(DSLContext dsl, JobSearch search) {
    FencingAppendJob j = FENCING_APPEND_JOB;
    FencingAppendRequeue r = FENCING_APPEND_REQUEUE;
    FencingParked p = FENCING_PARKED;
    Select<Record1<Long>> union =
        select(r.JOB_ID)
            .from(r)
            .where(matching(search, r.QUEUE, null, r.JOB_ID))
            .union(select(p.JOB_ID).from(p).where(matching(search, p.QUEUE, null, p.JOB_ID)));
    List<String> names = search.queue() != null ? List.of(search.queue()) : queueNames(dsl);
    for (String name : names) {
      union =
          union.unionAll(
              select(j.ID)
                  .from(j)
                  .where(j.QUEUE.eq(name))
                  .and(AppendWindow.fresh(j, window(dsl, name)))
                  .and(matching(search, null, null, j.ID)));
    }
    return union;
  }

  /** The running jobs {@code search} may find ({@code found}): from the live claims' jobs. */
  private static Select<Record1<Long>> running(JobSearch search, Condition found) {
    FencingAppendJob j = FENCING_APPEND_JOB;
    FencingAppendDone d = FENCING_APPEND_DONE;
    FencingAppendClaim c = FENCING_APPEND_CLAIM;
    Table<?> u = unnest(c.JOB_IDS).as("u", "id");
    Field<Long> handedOut = u.field("id", Long.class);
    return select(j.ID)
        .from(c, u)
        .join(j)
        .on(j.ID.eq(handedOut))
        .leftJoin(d)
        .on(d.JOB_ID.eq(j.ID))
        .where(c.LIVE)
        .and(matching(search, c.QUEUE, null, null))
        .and(found);
  }

  /** The failed jobs {@code search} may find, in the done table's index of failed jobs. */
  private static Condition failed(JobSearch search) {
    FencingAppendDone d = FENCING_APPEND_DONE;
    return d.STATUS
        .eq(inline(JobState.FAILED.dbName()))
        .and(matching(search, d.QUEUE, null, d.JOB_ID));
  }

  /** Every queue with jobs, skipping through the window index from one name to the next. */
  private static List<String> queueNames(DSLContext dsl) {
    return dsl.resultQuery(
            "with recursive n(q) as (select min(queue) from {0} union all"
                + " select (select min(queue) from {0} where queue > n.q)"
                + " from n where n.q is not null)"
                + " select q from n where q is not null order by 1",
            FENCING_APPEND_JOB)
        .fetch(0, String.class);
  }

  /** The queue's window, or null if no claim made one yet. */
  private static @Nullable Record4<String, String, Long, Long> window(
      DSLContext dsl, String queue) {
    FencingAppendWindow w = FENCING_APPEND_WINDOW;
    return dsl.select(w.LO, w.HI, w.AFTER_XID, w.AFTER_ID)
        .from(w)
        .where(w.QUEUE.eq(queue))
        .fetchOne();
  }

  /**
   * Jobs in {@code state}, as {@link AppendState#state} tells it: ended with a done row; pending
   * with a requeue or parked row, or never handed out; else running.
   */
  private static Condition inState(FencingAppendJob j, FencingAppendDone d, JobState state) {
    if (state == JobState.COMPLETED || state == JobState.FAILED) {
      return d.STATUS.eq(inline(state.dbName()));
    }
    Condition requeued =
        exists(
            selectOne().from(FENCING_APPEND_REQUEUE).where(FENCING_APPEND_REQUEUE.JOB_ID.eq(j.ID)));
    Condition parked =
        exists(selectOne().from(FENCING_PARKED).where(FENCING_PARKED.JOB_ID.eq(j.ID)));
    Condition handedOut =
        exists(
            selectOne().from(FENCING_APPEND_HANDOUT).where(FENCING_APPEND_HANDOUT.JOB_ID.eq(j.ID)));
    Condition waiting = requeued.or(parked).or(handedOut.not());
    return d.JOB_ID.isNull().and(state == JobState.PENDING ? waiting : waiting.not());
  }

  /**
   * The oldest pending job's due time: the first entry of the requeue table's index (a parked job
   * given back waits there at {@code PARKED_RUN_AT}), the earliest parked time, and the enqueue of
   * the window's first fresh job; the finished jobs of the last hour from the done table's index.
   */
  @Override
  public QueueActivity activity(String queue) {
    Validate.identifier("queue", queue);
    FencingAppendJob j = FENCING_APPEND_JOB;
    return read(
        dsl -> {
          var window = window(dsl, queue);
          var fresh =
              dsl.select(j.CREATED_AT)
                  .from(j)
                  .where(j.QUEUE.eq(queue))
                  .and(AppendWindow.fresh(j, window))
                  .orderBy(j.XID, j.ID)
                  .limit(1);
          var oldest =
              dsl.resultQuery(
                  "select least((select min(ready_at) from {0} where queue = {1}),"
                      + " (select min(ready_at) from {2} where queue = {1}), ({3}))",
                  FENCING_APPEND_REQUEUE, val(queue), FENCING_PARKED, fresh);
          return activity(dsl, queue, oldest, FENCING_APPEND_DONE, "true");
        });
  }

  @Override
  public Optional<JobOptionsView> options(long jobId) {
    return options(jobId, FENCING_APPEND_JOB.ID, FENCING_APPEND_JOB.IDEMPOTENCY_KEY);
  }
}
