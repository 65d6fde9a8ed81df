package dev.fencing.postgres.internal;

import static dev.fencing.postgres.internal.jooq.Tables.FENCING_JOB_OPTION;

import dev.fencing.postgres.admin.JobPage;
import dev.fencing.postgres.admin.JobRow;
import dev.fencing.postgres.admin.JobSearch;
import dev.fencing.postgres.admin.QueueActivity;
import dev.fencing.postgres.internal.jooq.tables.FencingJobOption;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.Function;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Record;
import org.jooq.Record1;
import org.jooq.ResultQuery;
import org.jooq.Select;
import org.jooq.Table;
import org.jooq.impl.DSL;
import org.jspecify.annotations.Nullable;

/**
 * What both engines' operators' views read alike for the console's pages ({@code
 * PostgresAdmin.jobs} and {@code activity}): a search's conditions, the newest ids of a state's
 * index, a page, the options of a page's jobs, a queue's last hour from the index of finished jobs.
 */
public final class AdminReads {

  private AdminReads() {}

  /** How many 5-minute spans {@link QueueActivity#lastHour} has. */
  private static final int SPANS = 12;

  /**
   * Jobs finished in each 5-minute span of the last hour, per queue, from {@code finished} (a table
   * with {@code queue}, {@code status} and {@code finished_at}) through its index on {@code
   * finished_at}, in one scan of the hour's rows; {@code finishedOnly} is the condition that index
   * holds.
   *
   * @param queue only this queue, or every queue when null
   */
  private static LastHour lastHour(
      DSLContext dsl, Table<?> finished, String finishedOnly, @Nullable String queue) {
    var rows =
        dsl.resultQuery(
                "select now() - interval '1 hour', b.queue, b.i, b.completed, b.failed from (select"
                    + " 1) one left join (select f.queue, least(floor(date_part('epoch',"
                    + " f.finished_at - (now() - interval '1 hour')) / 300)::int, "
                    + (SPANS - 1)
                    + ") as i, count(*) filter (where f.status = 'completed') as completed,"
                    + " count(*) filter (where f.status = 'failed') as failed from {0} f"
                    + " where f.finished_at > now() - interval '1 hour' and f.finished_at <= now()"
                    + " and "
                    + finishedOnly
                    + (queue == null ? "" : " and f.queue = {1}")
                    + " group by 1, 2) b on true",
                finished,
                DSL.val(queue == null ? "" : queue))
            .fetch();
    Instant since = rows.getFirst().get(0, OffsetDateTime.class).toInstant();
    Map<String, long[][]> counts = new HashMap<>();
    for (Record row : rows) {
      String q = row.get(1, String.class);
      if (q != null) {
        long[] span = counts.computeIfAbsent(q, k -> new long[SPANS][2])[row.get(2, Integer.class)];
        span[0] = row.get(3, Long.class);
        span[1] = row.get(4, Long.class);
      }
    }
    return new LastHour(since, counts);
  }

  /** The last hour's counts per queue, and when it began on the database clock. */
  private record LastHour(Instant since, Map<String, long[][]> counts) {

    List<QueueActivity.Bucket> buckets(String queue) {
      long[][] spans = counts.getOrDefault(queue, new long[SPANS][2]);
      List<QueueActivity.Bucket> buckets = new ArrayList<>(SPANS);
      for (int i = 0; i < SPANS; i++) {
        buckets.add(
            new QueueActivity.Bucket(since.plusSeconds(300L * i), spans[i][0], spans[i][1]));
      }
      return buckets;
    }
  }

  /** A job's priority and group, as {@code fencing_job_option} holds them (0 and null if not). */
  public record Options(int priority, @Nullable String group) {
    public static final Options NONE = new Options(0, null);
  }

  /** The options of the jobs {@code ids} that have any, by job id. */
  public static Map<Long, Options> options(DSLContext dsl, Collection<Long> ids) {
    FencingJobOption o = FENCING_JOB_OPTION;
    Map<Long, Options> options = new HashMap<>();
    if (!ids.isEmpty()) {
      dsl.select(o.JOB_ID, o.PRIORITY, o.GRP)
          .from(o)
          .where(o.JOB_ID.in(ids))
          .forEach(r -> options.put(r.value1(), new Options(r.value2(), r.value3())));
    }
    return options;
  }

  /**
   * The queue's activity: {@code oldestPending} (one timestamp, null when nothing is pending) and
   * {@link #lastHour}.
   */
  public static QueueActivity activity(
      DSLContext dsl,
      String queue,
      ResultQuery<?> oldestPending,
      Table<?> finished,
      String finishedOnly) {
    OffsetDateTime oldest = oldestPending.fetchOne(0, OffsetDateTime.class);
    return new QueueActivity(
        queue,
        AdminSupport.instant(oldest),
        lastHour(dsl, finished, finishedOnly, queue).buckets(queue));
  }

  /**
   * The activity of {@code queues} and of every queue with a job finished in the last hour, by
   * name: each queue's {@code oldestPending}, and one {@link #lastHour} scan for all of them.
   */
  public static List<QueueActivity> activities(
      DSLContext dsl,
      Collection<String> queues,
      Function<String, ResultQuery<?>> oldestPending,
      Table<?> finished,
      String finishedOnly) {
    LastHour hour = lastHour(dsl, finished, finishedOnly, null);
    TreeSet<String> names = new TreeSet<>(queues);
    names.addAll(hour.counts().keySet());
    List<QueueActivity> activities = new ArrayList<>(names.size());
    for (String queue : names) {
      OffsetDateTime oldest = oldestPending.apply(queue).fetchOne(0, OffsetDateTime.class);
      activities.add(new QueueActivity(queue, AdminSupport.instant(oldest), hour.buckets(queue)));
    }
    return activities;
  }

  /**
   * What {@code search} asks of the engine's job table (its {@code queue}, {@code key} and {@code
   * id} columns), its state aside; every value bound.
   */
  public static Condition matching(
      JobSearch search,
      @Nullable Field<String> queue,
      @Nullable Field<String> key,
      @Nullable Field<Long> id) {
    Condition where = DSL.noCondition();
    if (queue != null && search.queue() != null) {
      where = where.and(queue.eq(search.queue()));
    }
    if (key != null && search.key() != null) {
      where = where.and(key.eq(search.key()));
    }
    if (id != null && search.afterId() != null) {
      where = where.and(id.lt(search.afterId()));
    }
    return where;
  }

  /**
   * The most rows of a state's index that {@link #few} calls few: up to that many, reading them all
   * beats walking the primary key among every other job; beyond, the state is common enough for the
   * walk to meet a page of them soon.
   */
  public static final int FEW = 5_000;

  /**
   * Whether {@code from} where {@code where} holds at most {@link #FEW} rows, counted up to one
   * more (an index-only scan of the state's partial index, which the condition names).
   */
  public static boolean few(DSLContext dsl, Table<?> from, Condition where) {
    return dsl.fetchCount(DSL.selectOne().from(from).where(where).limit(FEW + 1)) <= FEW;
  }

  /**
   * The {@code n} largest of the job ids {@code candidates} selects, read whole first (a
   * materialized CTE): for candidates an index finds (a partial index of one state), whose rows a
   * walk of the primary key would have to look for among every other job.
   */
  public static List<Long> newest(
      DSLContext dsl, Select<? extends Record1<Long>> candidates, int n) {
    var c = DSL.name("c").fields("id").asMaterialized(candidates);
    Field<Long> id = c.field("id", Long.class);
    return dsl.with(c).select(id).from(c).orderBy(id.desc()).limit(n).fetch(id);
  }

  /**
   * The page of {@code rows}, read with one more than {@code limit}: the extra row only says that
   * more may follow.
   */
  public static JobPage page(List<JobRow> rows, int limit) {
    if (rows.size() <= limit) {
      return new JobPage(rows, null);
    }
    List<JobRow> page = rows.subList(0, limit);
    return new JobPage(page, page.getLast().id());
  }
}
