package dev.fencing.postgres.internal.append;

import static dev.fencing.postgres.internal.jooq.Tables.FENCING_APPEND_DONE;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_APPEND_JOB;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_APPEND_REQUEUE;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_PARKED;
import static org.jooq.impl.DSL.any;
import static org.jooq.impl.DSL.coalesce;
import static org.jooq.impl.DSL.currentOffsetDateTime;
import static org.jooq.impl.DSL.inline;
import static org.jooq.impl.DSL.nullif;
import static org.jooq.impl.DSL.selectOne;

import dev.fencing.postgres.internal.GroupLimits;
import dev.fencing.postgres.internal.Jdbc;
import dev.fencing.postgres.internal.LeaseSql;
import dev.fencing.postgres.internal.RenderedSql;
import dev.fencing.postgres.internal.jooq.tables.FencingAppendJob;
import dev.fencing.postgres.internal.jooq.tables.FencingAppendRequeue;
import dev.fencing.postgres.internal.jooq.tables.FencingParked;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jooq.DSLContext;
import org.jooq.Query;
import org.jspecify.annotations.Nullable;

/**
 * The jobs with a priority a claim of the append-only engine takes ({@code fencing_parked}, schema
 * V2): enqueued with a priority (their window skips them: they have an operated row), or given back
 * with one (their {@code requeue} row waits at {@code OptionRows.PARKED_RUN_AT}, out of every
 * claim's reach, and says their last hand-out). Due rows are locked highest priority first, skipped
 * if another claim holds them; a row taken is deleted with the job's {@code requeue} row. A V1
 * library never reads them, so it never hands such a job out.
 */
final class Parked {

  private final RenderedSql parkedSql;
  private final RenderedSql agedSql;
  private final RenderedSql unparkSql;

  @Inject
  Parked(Jdbc jdbc) {
    DSLContext dsl = jdbc.dsl();
    this.parkedSql =
        RenderedSql.of(dsl, RenderedSql.Plan.INDEXED, (d, p) -> parkedQuery(d, p, false));
    this.agedSql = RenderedSql.of(dsl, RenderedSql.Plan.INDEXED, (d, p) -> parkedQuery(d, p, true));
    this.unparkSql = RenderedSql.of(dsl, RenderedSql.Plan.INDEXED, Parked::unparkQuery);
  }

  /**
   * Due parked jobs, by priority, ready time and id, locked; those another claim holds skipped; of
   * a group's, only {@code startable} ({@link GroupLimits}; all when null).
   */
  List<Candidate> due(
      Connection connection, String queue, int limit, Long @Nullable [] startable, long agingMicros)
      throws SQLException {
    Map<String, Object> values =
        GroupLimits.bind(new HashMap<>(Map.of("queue", queue, "limit", limit)), startable);
    if (agingMicros > 0) {
      values.put("aging", agingMicros);
    }
    return Candidate.waiting(connection, agingMicros > 0 ? agedSql : parkedSql, values, true);
  }

  /** Deletes the parked and {@code requeue} rows of the first {@code taken} of {@code parked}. */
  void unpark(Connection connection, List<Candidate> parked, int taken) throws SQLException {
    if (taken == 0) {
      return;
    }
    Long[] ids = new Long[taken];
    for (int i = 0; i < taken; i++) {
      ids[i] = parked.get(i).jobId();
    }
    try (PreparedStatement s = unparkSql.prepare(connection, Map.of("ids", ids))) {
      unparkSql.update(s);
    }
  }

  private static Query parkedQuery(DSLContext dsl, RenderedSql.Parameters p, boolean aged) {
    FencingParked k = FENCING_PARKED;
    FencingAppendRequeue r = FENCING_APPEND_REQUEUE;
    FencingAppendJob j = FENCING_APPEND_JOB;
    return dsl.select(
            k.JOB_ID,
            k.READY_AT,
            coalesce(r.EPOCH, inline(0L)),
            coalesce(r.ATTEMPTS, inline(0)),
            coalesce(r.REASON, inline("fresh")),
            r.LAST_ERROR,
            nullif(r.OWNER, inline("")),
            j.PAYLOAD,
            j.MAX_ATTEMPTS,
            k.PRIORITY)
        .from(k)
        .join(j)
        .on(j.ID.eq(k.JOB_ID))
        .leftJoin(r)
        .on(r.JOB_ID.eq(k.JOB_ID))
        .where(k.QUEUE.eq(p.varchar("queue")))
        .and(k.READY_AT.le(currentOffsetDateTime()))
        .and(GroupLimits.startableOnly(k, p))
        // a job an operator ended since it was parked stays ended
        .andNotExists(
            selectOne().from(FENCING_APPEND_DONE).where(FENCING_APPEND_DONE.JOB_ID.eq(k.JOB_ID)))
        .orderBy(
            aged
                ? List.of(
                    LeaseSql.aged(k.READY_AT, k.PRIORITY, p.bigint("aging")).asc(), k.JOB_ID.asc())
                : List.of(k.PRIORITY.desc(), k.READY_AT.asc(), k.JOB_ID.asc()))
        .limit(p.integer("limit"))
        .forUpdate()
        .of(k)
        .skipLocked();
  }

  private static Query unparkQuery(DSLContext dsl, RenderedSql.Parameters p) {
    FencingParked k = FENCING_PARKED;
    FencingAppendRequeue r = FENCING_APPEND_REQUEUE;
    var ids = p.bigints("ids");
    return dsl.with("unparked")
        .as(dsl.deleteFrom(k).where(k.JOB_ID.eq(any(ids))).returningResult(k.JOB_ID))
        .delete(r)
        .where(r.JOB_ID.eq(any(ids)));
  }
}
