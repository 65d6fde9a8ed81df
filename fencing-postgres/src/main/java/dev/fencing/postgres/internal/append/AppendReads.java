package dev.fencing.postgres.internal.append;

import static dev.fencing.postgres.internal.AdminReads.few;
import static dev.fencing.postgres.internal.AdminReads.matching;
import static dev.fencing.postgres.internal.AdminReads.newest;
import static dev.fencing.postgres.internal.AdminReads.page;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_APPEND_CLAIM;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_APPEND_DONE;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_APPEND_HANDOUT;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_APPEND_JOB;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_APPEND_REQUEUE;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_APPEND_WINDOW;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_PARKED;
import static org.jooq.impl.DSL.exists;
import static org.jooq.impl.DSL.inline;
import static org.jooq.impl.DSL.select;
import static org.jooq.impl.DSL.selectOne;
import static org.jooq.impl.DSL.unnest;
import static org.jooq.impl.DSL.val;

import dev.fencing.JobState;
import dev.fencing.postgres.admin.JobHistory;
import dev.fencing.postgres.admin.JobPage;
import dev.fencing.postgres.admin.JobRow;
import dev.fencing.postgres.admin.JobSearch;
import dev.fencing.postgres.admin.QueueActivity;
import dev.fencing.postgres.internal.AdminReads;
import dev.fencing.postgres.internal.AdminSupport;
import dev.fencing.postgres.internal.EngineReads;
import dev.fencing.postgres.internal.jooq.tables.FencingAppendClaim;
import dev.fencing.postgres.internal.jooq.tables.FencingAppendDone;
import dev.fencing.postgres.internal.jooq.tables.FencingAppendJob;
import dev.fencing.postgres.internal.jooq.tables.FencingAppendRequeue;
import dev.fencing.postgres.internal.jooq.tables.FencingAppendWindow;
import dev.fencing.postgres.internal.jooq.tables.FencingParked;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Record1;
import org.jooq.Record4;
import org.jooq.ResultQuery;
import org.jooq.Select;
import org.jooq.Table;
import org.jspecify.annotations.Nullable;

/**
 * The append-only engine's reads for the console's pages ({@link AppendAdmin#jobs}, {@link
 * AppendAdmin#activity}): each state's jobs from the rows that make it (requeue, parked, a queue's
 * window, live claims, done), so that a search never walks every job to find a rare state.
 */
final class AppendReads implements EngineReads {

  /**
   * The page's ids: of pending jobs from the requeue and parked tables and each queue's window; of
   * running ones from the live claims; of {@link AdminReads#FEW few} failed ones from the done
   * table's index of failed jobs; else by the job table's primary key read backwards (or the key's
   * unique index), the state told from the done, requeue, parked and hand-out rows by their primary
   * keys. Then each job of the page as {@link AppendAdmin#job} puts it together ({@link
   * AppendState}).
   */
  @Override
  public JobPage jobs(DSLContext dsl, JobSearch search) {
    FencingAppendJob j = FENCING_APPEND_JOB;
    FencingAppendDone d = FENCING_APPEND_DONE;
    Condition where = matching(search, j.QUEUE, j.IDEMPOTENCY_KEY, j.ID);
    JobState state = search.state();
    if (state != null) {
      where = where.and(inState(j, d, state));
    }
    Condition found = where;
    int n = search.limit() + 1;
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

  /**
   * The jobs {@code ids} that still exist, newest first, each as {@link AppendAdmin#job} puts it
   * together.
   */
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
    Map<Long, AdminReads.Options> options = AdminReads.options(dsl, ids);
    List<JobRow> rows = new ArrayList<>(ids.size());
    for (long id : ids) {
      AppendState state = states.get(id);
      if (state == null) {
        continue; // purged since the first statement
      }
      var job = state.snapshot();
      AdminReads.Options o = options.getOrDefault(id, AdminReads.Options.NONE);
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
  static List<String> queueNames(DSLContext dsl) {
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
  public QueueActivity activity(DSLContext dsl, String queue) {
    return AdminReads.activity(dsl, queue, oldestPending(dsl, queue), FENCING_APPEND_DONE, "true");
  }

  /** As {@link #activity}, for {@code queues} and every queue that finished a job in the hour. */
  @Override
  public List<QueueActivity> activities(DSLContext dsl, Collection<String> queues) {
    return AdminReads.activities(
        dsl, queues, q -> oldestPending(dsl, q), FENCING_APPEND_DONE, "true");
  }

  private static ResultQuery<?> oldestPending(DSLContext dsl, String queue) {
    FencingAppendJob j = FENCING_APPEND_JOB;
    var fresh =
        dsl.select(j.CREATED_AT)
            .from(j)
            .where(j.QUEUE.eq(queue))
            .and(AppendWindow.fresh(j, window(dsl, queue)))
            .orderBy(j.XID, j.ID)
            .limit(1);
    return dsl.resultQuery(
        "select least((select min(ready_at) from {0} where queue = {1}),"
            + " (select min(ready_at) from {2} where queue = {1}), ({3}))",
        FENCING_APPEND_REQUEUE, val(queue), FENCING_PARKED, fresh);
  }

  /** The job's every hand-out ({@link AppendHistory}) and its refused writes. */
  @Override
  public Optional<JobHistory> history(DSLContext dsl, long jobId) {
    return AppendHistory.read(dsl, jobId);
  }
}
