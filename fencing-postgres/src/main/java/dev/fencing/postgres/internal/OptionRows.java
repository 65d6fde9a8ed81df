package dev.fencing.postgres.internal;

import dev.fencing.JobOptions;
import dev.fencing.postgres.internal.jooq.Tables;
import dev.fencing.postgres.internal.jooq.tables.FencingParked;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import org.jooq.CommonTableExpression;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Name;
import org.jooq.QueryPart;
import org.jooq.Record1;
import org.jooq.Record5;
import org.jooq.ResultQuery;
import org.jooq.Select;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;
import org.jspecify.annotations.Nullable;

/**
 * The enqueue of jobs with {@link JobOptions} (run later, a priority), plain or keyed, on either
 * engine: one statement per chunk, the options as arrays parallel to the payloads, the job rows and
 * the engine's rows beside them ({@link JobStore#optionRows}) written by data-modifying CTEs. Jobs
 * without options are enqueued by the statements of {@link PostgresQueue} and {@link
 * KeyedEnqueues}, whose text this leaves unchanged.
 *
 * <p>A job's ready time is its run time, or {@code now()} of the database plus its delay (or {@code
 * now()}): the store's clock, never the producer's. The engines' CTEs read the jobs written, with
 * their options, from {@code o(id, pr, ready)}, which holds only the jobs that have options.
 */
public final class OptionRows {

  /**
   * The run time of a job row waiting in {@code fencing_parked} (a priority other than 0): so far
   * ahead that a claim of a V1 library, which knows nothing of priorities, never takes it.
   */
  public static final Field<OffsetDateTime> PARKED_RUN_AT =
      DSL.field("timestamptz '9999-01-01 00:00:00+00'", SQLDataType.TIMESTAMPWITHTIMEZONE(6));

  private static final String WITH_OPTIONS =
      " where r.pr <> 0 or r.ra is not null or r.dl is not null or r.gr is not null";

  /** Which jobs of {@code o} wait in {@code fencing_parked}: those with a priority or a group. */
  public static final String PARKS = "o.pr <> 0 or o.gr is not null";

  private OptionRows() {}

  /** Whether any of {@code options} is not the default. */
  static boolean any(List<JobOptions> options) {
    return options.stream().anyMatch(o -> !o.isDefault());
  }

  /**
   * The insert of unkeyed jobs, each with its options; answers the new ids in the order of {@code
   * payloads} (ids follow the rows' order {@code n}, as in {@link PostgresQueue}).
   */
  static ResultQuery<?> plain(
      DSLContext d,
      JobStore store,
      String queue,
      int maxAttempts,
      List<String> payloads,
      List<JobOptions> options) {
    return insert(
        d,
        store,
        queue,
        maxAttempts,
        null,
        Collections.nCopies(payloads.size(), null),
        payloads,
        options,
        " ins as (insert into {3} ({4}) select {5} from r order by r.n returning {6}),"
            + " o as (select i.id, r.pr, r.ready, r.gr from (select {6} as id, row_number() over (order"
            + " by {6}) as n from ins) i join r on r.n = i.n"
            + WITH_OPTIONS
            + "), {7} select {6} from ins order by {6}");
  }

  /**
   * The insert of keyed jobs, each with its options, skipping keys the queue holds: answers {@code
   * (id, key)} of the jobs inserted. Rows are inserted in the order given.
   */
  static ResultQuery<?> keyed(
      DSLContext d,
      JobStore store,
      String queue,
      int maxAttempts,
      UUID token,
      List<String> keys,
      List<String> payloads,
      List<JobOptions> options) {
    return insert(
        d,
        store,
        queue,
        maxAttempts,
        token,
        keys,
        payloads,
        options,
        " ins as (insert into {3} ({4}) select {5} from r order by r.n"
            + " on conflict ({8}, {9}) where {9} is not null do nothing returning {6}, {9}),"
            + " o as (select ins.{6} as id, r.pr, r.ready, r.gr from ins join r on r.k = ins.{9}"
            + WITH_OPTIONS
            + "), {7} select {6}, {9} from ins");
  }

  /**
   * The statement: the given rows {@code g(k, p, pr, ra, dl, n)} (key, payload, priority, run time,
   * delay in microseconds, position), {@code r} with their ready times, then {@code tail}, which
   * inserts them as {@code ins} and names the jobs with options {@code o}. Its parameters: {3} the
   * job table, {4} the columns written, {5} their values, {6} the id column, {7} the engine's CTEs,
   * {8} the queue column, {9} the key column.
   *
   * @param token the keyed call's token, null for an unkeyed one (keys all null then)
   */
  private static ResultQuery<?> insert(
      DSLContext d,
      JobStore store,
      String queue,
      int maxAttempts,
      @Nullable UUID token,
      List<String> keys,
      List<String> payloads,
      List<JobOptions> options,
      String tail) {
    JobStore.JobTable t = store.jobs();
    Field<String> q = DSL.val(queue);
    List<Name> columns =
        new ArrayList<>(List.of(name(t.queue()), name(t.payload()), name(t.maxAttempts())));
    List<QueryPart> values =
        new ArrayList<>(List.of(q, DSL.field("r.p::jsonb"), DSL.val(maxAttempts)));
    if (token != null) {
      columns.addAll(List.of(name(t.key()), name(t.token())));
      values.addAll(List.of(DSL.field("r.k"), DSL.val(token)));
    }
    Field<OffsetDateTime> runAt = store.runAt();
    if (runAt != null) {
      columns.add(name(runAt));
      values.add(
          DSL.field(
              "case when r.pr <> 0 or r.gr is not null then {0} else r.ready end", PARKED_RUN_AT));
    }
    t.stamps().forEach(f -> columns.add(name(f)));
    values.addAll(t.stampValues());
    return d.resultQuery(
        "with g as (select * from unnest({0}::text[], {1}::text[], {2}::smallint[],"
            + " {10}::timestamptz[], {11}::bigint[], {12}::text[]) with ordinality"
            + " as g(k, p, pr, ra, dl, gr, n)),"
            + " r as (select g.*, coalesce(g.ra, now() + coalesce(g.dl, 0) * interval"
            + " '1 microsecond') as ready from g),"
            + tail,
        DSL.val(keys.toArray(String[]::new)),
        DSL.val(payloads.toArray(String[]::new)),
        DSL.val(options.stream().map(o -> (short) o.priority()).toArray(Short[]::new)),
        t.table(),
        DSL.list(columns),
        DSL.list(values),
        name(t.id()),
        store.optionRows(q),
        name(t.queue()),
        name(t.key()),
        DSL.val(
            options.stream()
                .map(
                    o ->
                        o.runAt()
                            // to the microsecond as PostgreSQL keeps it, cut as the in-memory
                            // queue cuts, not rounded
                            .map(i -> i.truncatedTo(ChronoUnit.MICROS).atOffset(ZoneOffset.UTC))
                            .orElse(null))
                .toArray(OffsetDateTime[]::new)),
        DSL.val(
            options.stream()
                .map(o -> o.delay().map(l -> l.toNanos() / 1_000).orElse(null))
                .toArray(Long[]::new)),
        DSL.val(options.stream().map(o -> o.group().orElse(null)).toArray(String[]::new)));
  }

  /**
   * The CTEs that park the jobs of {@code o} with a priority other than 0, on either engine: a
   * {@code fencing_parked} row (ready at their ready time) and a {@code fencing_job_option} row,
   * which a retry reads to park the job again.
   */
  public static QueryPart parked(Field<String> queue) {
    return DSL.sql(
        "o_parked as (insert into {0} (job_id, queue, priority, ready_at, grp)"
            + " select o.id, {1}, o.pr, o.ready, o.gr from o where "
            + PARKS
            + "), o_option as (insert into {2} (job_id, queue, priority, grp)"
            + " select o.id, {1}, o.pr, o.gr from o where "
            + PARKS
            + ")",
        Tables.FENCING_PARKED,
        queue,
        Tables.FENCING_JOB_OPTION);
  }

  /**
   * A CTE {@code parked(p_id)} that parks again the jobs {@code rows} names, {@code (job_id, queue,
   * priority, ready_at, grp)}: a failure's retry or a release of a job with a priority, which keeps
   * it.
   */
  public static CommonTableExpression<Record1<Long>> parkedAgain(
      Select<? extends Record5<Long, String, Short, OffsetDateTime, String>> rows) {
    FencingParked k = Tables.FENCING_PARKED;
    return DSL.name("parked")
        .fields("p_id")
        .as(
            DSL.insertInto(k, k.JOB_ID, k.QUEUE, k.PRIORITY, k.READY_AT, k.GRP)
                .select(rows)
                // plain names: the render mapping would put the user's schema in front
                .onConflict(k.JOB_ID)
                .doUpdate()
                .set(k.PRIORITY, DSL.field("excluded.priority", SQLDataType.SMALLINT))
                .set(
                    k.READY_AT,
                    DSL.field("excluded.ready_at", SQLDataType.TIMESTAMPWITHTIMEZONE(6)))
                .returningResult(k.JOB_ID));
  }

  private static Name name(Field<?> column) {
    return column.getUnqualifiedName();
  }
}
