package dev.fencing.postgres.internal.inplace;

import static dev.fencing.postgres.internal.AdminReads.few;
import static dev.fencing.postgres.internal.AdminReads.matching;
import static dev.fencing.postgres.internal.AdminReads.newest;
import static dev.fencing.postgres.internal.AdminReads.page;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_JOB;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_PARKED;
import static org.jooq.impl.DSL.inline;
import static org.jooq.impl.DSL.select;
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
import dev.fencing.postgres.internal.jooq.tables.FencingJob;
import dev.fencing.postgres.internal.jooq.tables.FencingParked;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.ResultQuery;

/**
 * The update-in-place engine's reads for the console's pages ({@link InPlaceAdmin#jobs}, {@link
 * InPlaceAdmin#activity}): a state's jobs from its partial index, so that a search never walks
 * every job to find a rare state.
 */
final class InPlaceReads implements EngineReads {

  /**
   * The page's ids: of pending or running jobs (or {@link AdminReads#FEW few} failed ones) from
   * that state's partial index (all of the state's jobs of the queue, then the newest); else by the
   * primary key read backwards, or the key's unique index. Then the page's rows, options and parked
   * times by their primary keys.
   */
  @Override
  public JobPage jobs(DSLContext dsl, JobSearch search) {
    FencingJob j = FENCING_JOB;
    Condition where = matching(search, j.QUEUE, j.IDEMPOTENCY_KEY, j.ID);
    if (search.state() != null) {
      where = where.and(j.STATUS.eq(inline(search.state().dbName())));
    }
    Condition found = where;
    int n = search.limit() + 1;
    JobState state = search.key() == null ? search.state() : null;
    List<Long> ids =
        state == JobState.PENDING
                || state == JobState.RUNNING
                || (state == JobState.FAILED && few(dsl, j, found))
            ? newest(dsl, select(j.ID).from(j).where(found), n)
            : dsl.select(j.ID).from(j).where(found).orderBy(j.ID.desc()).limit(n).fetch(j.ID);
    return page(rows(dsl, ids), search.limit());
  }

  /** The jobs {@code ids} that still exist, newest first; a parked job due at its parked time. */
  private static List<JobRow> rows(DSLContext dsl, List<Long> ids) {
    FencingJob j = FENCING_JOB;
    var rows =
        dsl.select(
                j.ID,
                j.QUEUE,
                j.STATUS,
                j.IDEMPOTENCY_KEY,
                j.EPOCH,
                j.OWNER,
                j.ATTEMPTS,
                j.RUN_AT,
                j.FINISHED_AT,
                j.LAST_ERROR)
            .from(j)
            .where(j.ID.in(ids))
            .orderBy(j.ID.desc())
            .fetch();
    Map<Long, AdminReads.Options> options = AdminReads.options(dsl, ids);
    FencingParked k = FENCING_PARKED;
    Map<Long, OffsetDateTime> parked =
        ids.isEmpty()
            ? Map.of()
            : dsl.select(k.JOB_ID, k.READY_AT)
                .from(k)
                .where(k.JOB_ID.in(ids))
                .fetchMap(k.JOB_ID, k.READY_AT);
    List<JobRow> page = new ArrayList<>(rows.size());
    for (var r : rows) {
      AdminReads.Options o = options.getOrDefault(r.value1(), AdminReads.Options.NONE);
      page.add(
          new JobRow(
              r.value1(),
              r.value2(),
              JobState.fromDbName(r.value3()),
              r.value4(),
              r.value5(),
              r.value6(),
              r.value7(),
              parked.getOrDefault(r.value1(), r.value8()).toInstant(),
              AdminSupport.instant(r.value9()),
              r.value10(),
              o.priority(),
              o.group()));
    }
    return page;
  }

  /**
   * The oldest pending job's due time: the first entry of the pending index (a parked job's row
   * waits at {@code PARKED_RUN_AT} there) or the queue's earliest parked time; the finished jobs of
   * the last hour from the finished index.
   */
  @Override
  public QueueActivity activity(DSLContext dsl, String queue) {
    return AdminReads.activity(dsl, queue, oldestPending(dsl, queue), FENCING_JOB, FINISHED_ONLY);
  }

  /** As {@link #activity}, for {@code queues} and every queue that finished a job in the hour. */
  @Override
  public List<QueueActivity> activities(DSLContext dsl, Collection<String> queues) {
    return AdminReads.activities(
        dsl, queues, q -> oldestPending(dsl, q), FENCING_JOB, FINISHED_ONLY);
  }

  private static final String FINISHED_ONLY = "f.status in ('completed', 'failed')";

  private static ResultQuery<?> oldestPending(DSLContext dsl, String queue) {
    return dsl.resultQuery(
        "select least((select min(run_at) from {0} where queue = {1}"
            + " and status = 'pending'), (select min(ready_at) from {2}"
            + " where queue = {1}))",
        FENCING_JOB, val(queue), FENCING_PARKED);
  }

  /** The job's claims as its row keeps them ({@link InPlaceHistory}) and its refused writes. */
  @Override
  public Optional<JobHistory> history(DSLContext dsl, long jobId) {
    return InPlaceHistory.read(dsl, jobId);
  }
}
