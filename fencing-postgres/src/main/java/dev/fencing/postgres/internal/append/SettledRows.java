package dev.fencing.postgres.internal.append;

import static dev.fencing.postgres.internal.jooq.Tables.FENCING_APPEND_CLAIM;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_APPEND_DONE;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_APPEND_REQUEUE;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_JOB_OPTION;
import static org.jooq.impl.DSL.exists;
import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.inline;
import static org.jooq.impl.DSL.name;
import static org.jooq.impl.DSL.select;
import static org.jooq.impl.DSL.selectOne;
import static org.jooq.impl.DSL.table;
import static org.jooq.impl.DSL.when;

import dev.fencing.Lease;
import dev.fencing.postgres.internal.Jdbc;
import dev.fencing.postgres.internal.LeaseSql;
import dev.fencing.postgres.internal.Notifier;
import dev.fencing.postgres.internal.OptionRows;
import dev.fencing.postgres.internal.OutboxWrites;
import dev.fencing.postgres.internal.RenderedSql;
import dev.fencing.postgres.internal.jooq.tables.FencingAppendClaim;
import dev.fencing.postgres.internal.jooq.tables.FencingAppendDone;
import dev.fencing.postgres.internal.jooq.tables.FencingAppendRequeue;
import dev.fencing.postgres.internal.jooq.tables.FencingJobOption;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jooq.CommonTableExpression;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.InsertOnDuplicateStep;
import org.jooq.Query;
import org.jooq.Record;
import org.jooq.Record1;
import org.jooq.Table;
import org.jooq.impl.SQLDataType;
import org.jspecify.annotations.Nullable;

/**
 * The rows a write of the append-only engine settles its jobs with, each kind one statement for a
 * whole batch: the {@code done} rows (a commit, with its outbox messages; a failure without
 * attempts left), the {@code requeue} rows (a failure with attempts left, a release; those due now
 * wake the queue's waiters), and the count-off of the jobs settled from their claim rows.
 */
final class SettledRows {

  private final OutboxWrites outbox;
  private final Notifier notifier;
  private final RenderedSql doneSql;
  private final RenderedSql requeueSql;
  private final RenderedSql countOffSql;

  @Inject
  SettledRows(Jdbc jdbc, OutboxWrites outbox, Notifier notifier) {
    this.outbox = outbox;
    this.notifier = notifier;
    DSLContext dsl = jdbc.dsl();
    RenderedSql.Plan indexed = RenderedSql.Plan.INDEXED;
    this.doneSql = RenderedSql.of(dsl, indexed, SettledRows::doneQuery);
    this.requeueSql = RenderedSql.of(dsl, indexed, SettledRows::requeueQuery);
    this.countOffSql = RenderedSql.of(dsl, indexed, SettledRows::countOffQuery);
  }

  /**
   * Inserts the {@code done} rows; returns the jobs that got one. A job that already has its end (a
   * repeat of a commit that landed) inserts nothing here, and is explained afterwards.
   */
  Set<Long> done(Connection connection, Rows done) throws SQLException {
    Set<Long> ended = new HashSet<>();
    if (done.isEmpty()) {
      return ended;
    }
    try (PreparedStatement s = doneSql.prepare(connection, done.values());
        ResultSet r = doneSql.query(s)) {
      while (r.next()) {
        ended.add(r.getLong(1));
      }
    }
    return ended;
  }

  /** Inserts the outbox messages of the commits whose {@code done} row was written. */
  void messages(Connection connection, List<OutboxWrites.Row> messages) throws SQLException {
    outbox.insert(connection, messages);
  }

  /**
   * Inserts the {@code requeue} rows; the queues of those due now are notified when the transaction
   * commits, so that idle workers wake up.
   */
  void requeue(Connection connection, Rows requeue) throws SQLException {
    if (requeue.isEmpty()) {
      return;
    }
    execute(connection, requeueSql, requeue.values());
    Set<String> dueNow = new HashSet<>();
    for (int i = 0; i < requeue.queues.size(); i++) {
      if (requeue.micros.get(i) == 0) {
        dueNow.add(requeue.queues.get(i));
      }
    }
    for (String queue : dueNow) {
      notifier.inTransaction(connection, queue);
    }
  }

  /**
   * Counts the settled jobs off their claim rows, each {@code claims[i]} and {@code jobs[i]}; those
   * with {@code back[i]} 1 were given back.
   */
  void countOff(Connection connection, List<Long> claims, List<Long> jobs, List<Integer> back)
      throws SQLException {
    if (!claims.isEmpty()) {
      execute(
          connection,
          countOffSql,
          Map.of(
              "claims", claims.toArray(Long[]::new),
              "jobs", jobs.toArray(Long[]::new),
              "back", back.toArray(Integer[]::new)));
    }
  }

  private static void execute(Connection connection, RenderedSql sql, Map<String, Object> values)
      throws SQLException {
    try (PreparedStatement s = sql.prepare(connection, values)) {
      sql.update(s);
    }
  }

  /** Rows of {@code done} or {@code requeue} to insert, as one array per column. */
  static final class Rows {
    private final List<Long> ids = new ArrayList<>();
    private final List<String> queues = new ArrayList<>();
    private final List<Long> epochs = new ArrayList<>();
    private final List<String> owners = new ArrayList<>();
    private final List<String> kinds = new ArrayList<>();
    private final List<Integer> attempts = new ArrayList<>();
    private final List<String> results = new ArrayList<>();
    private final List<String> errors = new ArrayList<>();
    private final List<Long> micros = new ArrayList<>();

    void add(
        Lease lease,
        String queue,
        String kind,
        int attempt,
        @Nullable String result,
        @Nullable String error,
        long delayMicros) {
      ids.add(lease.jobId());
      queues.add(queue);
      epochs.add(lease.epoch().value());
      owners.add(lease.owner());
      kinds.add(kind);
      attempts.add(attempt);
      results.add(result);
      errors.add(error);
      micros.add(delayMicros);
    }

    boolean isEmpty() {
      return ids.isEmpty();
    }

    Map<String, Object> values() {
      Map<String, Object> values = new HashMap<>();
      values.put("ids", ids.toArray(Long[]::new));
      values.put("queues", queues.toArray(String[]::new));
      values.put("epochs", epochs.toArray(Long[]::new));
      values.put("owners", owners.toArray(String[]::new));
      values.put("kinds", kinds.toArray(String[]::new));
      values.put("attempts", attempts.toArray(Integer[]::new));
      values.put("results", results.toArray(String[]::new));
      values.put("errors", errors.toArray(String[]::new));
      values.put("micros", micros.toArray(Long[]::new));
      return values;
    }
  }

  /** Rows to insert, as a table {@code u(u_id, u_queue, ...)} of one array per column. */
  private static Table<?> rows(RenderedSql.Parameters p) {
    return table(
            "unnest({0}, {1}, {2}, {3}, {4}, {5}, {6}, {7}, {8})",
            p.bigints("ids"),
            p.varchars("queues"),
            p.bigints("epochs"),
            p.varchars("owners"),
            p.varchars("kinds"),
            p.integers("attempts"),
            p.texts("results"),
            p.varchars("errors"),
            p.bigints("micros"))
        .as(
            "u",
            "u_id",
            "u_queue",
            "u_epoch",
            "u_owner",
            "u_kind",
            "u_attempts",
            "u_result",
            "u_error",
            "u_micros");
  }

  private static <T> Field<T> u(String column, Class<T> type) {
    return field(name("u_" + column), type);
  }

  private static Query doneQuery(DSLContext dsl, RenderedSql.Parameters p) {
    FencingAppendDone d = FENCING_APPEND_DONE;
    return insert(
            dsl,
            d,
            p,
            List.of(
                d.JOB_ID, d.QUEUE, d.EPOCH, d.STATUS, d.OWNER, d.ATTEMPTS, d.RESULT, d.LAST_ERROR),
            List.of(
                u("id", Long.class),
                u("queue", String.class),
                u("epoch", Long.class),
                u("kind", String.class),
                u("owner", String.class),
                u("attempts", Integer.class),
                field("{0}::jsonb", SQLDataType.JSONB, u("result", String.class)),
                u("error", String.class)))
        .onConflict(d.JOB_ID)
        .doNothing()
        .returning(d.JOB_ID);
  }

  /**
   * The {@code requeue} rows; a job with a priority ({@code fencing_job_option}) is parked again in
   * the same statement, ready from its retry time, and its {@code requeue} row (which says its last
   * hand-out) waits at {@link OptionRows#PARKED_RUN_AT}, so that only the parked row hands it out.
   */
  private static Query requeueQuery(DSLContext dsl, RenderedSql.Parameters p) {
    FencingAppendRequeue r = FENCING_APPEND_REQUEUE;
    FencingJobOption o = FENCING_JOB_OPTION;
    Field<Long> id = u("id", Long.class);
    Field<OffsetDateTime> ready = LeaseSql.nowPlusMicros(u("micros", Long.class));
    Condition ranked = o.JOB_ID.eq(id);
    Table<?> given = rows(p);
    CommonTableExpression<Record1<Long>> parked =
        OptionRows.parkedAgain(
            select(id, u("queue", String.class), o.PRIORITY, ready, o.GRP)
                .from(given)
                .join(o)
                .on(ranked));
    return dsl.with(parked)
        .insertInto(r)
        .columns(
            r.JOB_ID, r.QUEUE, r.READY_AT, r.EPOCH, r.OWNER, r.ATTEMPTS, r.REASON, r.LAST_ERROR)
        .select(
            select(
                    id,
                    u("queue", String.class),
                    when(exists(selectOne().from(o).where(ranked)), OptionRows.PARKED_RUN_AT)
                        .otherwise(ready),
                    u("epoch", Long.class),
                    u("owner", String.class),
                    u("attempts", Integer.class),
                    u("kind", String.class),
                    u("error", String.class))
                .from(given));
  }

  /** Inserts into {@code columns} of {@code table} the {@code values} of each of the rows. */
  private static <R extends Record> InsertOnDuplicateStep<R> insert(
      DSLContext dsl,
      Table<R> table,
      RenderedSql.Parameters p,
      List<Field<?>> columns,
      List<Field<?>> values) {
    return dsl.insertInto(table).columns(columns).select(select(values).from(rows(p)));
  }

  /**
   * Counts settled jobs off their claim rows (a row with none left open is no longer live) and adds
   * those given back to the row's {@code given_back}.
   */
  private static Query countOffQuery(DSLContext dsl, RenderedSql.Parameters p) {
    FencingAppendClaim c = FENCING_APPEND_CLAIM;
    Field<Integer> k = field(name("k_count"), Integer.class);
    Field<Long[]> back = field(name("k_back"), SQLDataType.BIGINT.array());
    Table<?> counted =
        table(
                "(select u.claim_id as k_id, count(*)::int as k_count,"
                    + " coalesce(array_agg(u.job_id) filter (where u.back = 1), '{}') as k_back"
                    + " from unnest({0}, {1}, {2}) as u(claim_id, job_id, back)"
                    + " group by u.claim_id)",
                p.bigints("claims"), p.bigints("jobs"), p.integers("back"))
            .as("k");
    return dsl.update(c)
        .set(c.OPEN, c.OPEN.minus(k))
        .set(c.LIVE, field(c.OPEN.minus(k).gt(inline(0))))
        .set(c.GIVEN_BACK, field("{0} || {1}", SQLDataType.BIGINT.array(), c.GIVEN_BACK, back))
        .from(counted)
        .where(c.ID.eq(field(name("k_id"), Long.class)));
  }
}
