package dev.fencing.postgres.internal.append;

import static dev.fencing.postgres.internal.jooq.Tables.FENCING_APPEND_CLAIM;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_APPEND_DONE;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_APPEND_HANDOUT;
import static org.jooq.impl.DSL.any;
import static org.jooq.impl.DSL.currentOffsetDateTime;
import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.inline;
import static org.jooq.impl.DSL.lateral;
import static org.jooq.impl.DSL.name;
import static org.jooq.impl.DSL.not;
import static org.jooq.impl.DSL.select;
import static org.jooq.impl.DSL.selectOne;
import static org.jooq.impl.DSL.table;

import dev.fencing.postgres.internal.Jdbc;
import dev.fencing.postgres.internal.LeaseArrays;
import dev.fencing.postgres.internal.LeaseSql;
import dev.fencing.postgres.internal.RenderedSql;
import dev.fencing.postgres.internal.jooq.tables.FencingAppendClaim;
import dev.fencing.postgres.internal.jooq.tables.FencingAppendHandout;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Map;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Query;
import org.jooq.Table;
import org.jooq.impl.SQLDataType;
import org.jspecify.annotations.Nullable;

/**
 * The append-only engine's compare-and-set: which leases own their job, read under the lock of the
 * claim rows their hand-outs name (taken in id order, so two batches never deadlock). A lease owns
 * its job when its claim row has the lease's owner, is live, its lease has not run out, and it has
 * not given the job back, and the job has no {@code done} row (a claim row stays live while other
 * jobs of its batch are open). A claim that takes a row over locks it too, so a write and a
 * takeover of one claim row happen one after the other, and the second sees the first.
 */
final class OwnedLeases {

  private static final Field<Long> X_JOB = field(name("x_job"), Long.class);
  private static final Field<Long> X_EPOCH = field(name("x_epoch"), Long.class);
  private static final Field<String> X_OWNER = field(name("x_owner"), String.class);
  private static final Field<Long> X_ORD = field(name("x_ord"), Long.class);

  private final RenderedSql lockSql;
  private final RenderedSql ownedSql;
  private final RenderedSql ownedNowSql;

  @Inject
  OwnedLeases(Jdbc jdbc) {
    DSLContext dsl = jdbc.dsl();
    this.lockSql = RenderedSql.of(dsl, RenderedSql.Plan.INDEXED, OwnedLeases::lockQuery);
    this.ownedSql =
        RenderedSql.of(
            dsl, RenderedSql.Plan.INDEXED, (d, p) -> ownedQuery(d, p, currentOffsetDateTime()));
    this.ownedNowSql =
        RenderedSql.of(dsl, RenderedSql.Plan.INDEXED, (d, p) -> ownedQuery(d, p, LeaseSql.CLOCK));
  }

  /** A lease's job, which the lease owns. */
  record Owned(long claimId, int attempt, @Nullable String error, String queue) {}

  /**
   * Locks the claim rows of the leases' hand-outs, in id order, then reads each lease's job by
   * position: what it owns, or null where it owns nothing.
   */
  @Nullable Owned[] lock(Connection connection, List<LeaseWrite> ops) throws SQLException {
    return lock(connection, ops, false);
  }

  /**
   * As {@link #lock(Connection, List)}; with {@code clockNow}, each lease judged at {@code
   * clock_timestamp()} instead of the transaction's start: a renewal under a running limit's lock
   * (see {@link dev.fencing.postgres.internal.RunningLimits}).
   */
  @Nullable Owned[] lock(Connection connection, List<LeaseWrite> ops, boolean clockNow)
      throws SQLException {
    RenderedSql ownedSql = clockNow ? ownedNowSql : this.ownedSql;
    Map<String, Object> leases =
        LeaseArrays.of(ops.stream().map(LeaseWrite::lease).toList()).values();
    try (PreparedStatement s = lockSql.prepare(connection, leases);
        ResultSet r = lockSql.query(s)) {
      while (r.next()) {
        // locked, in id order
      }
    }
    Owned[] owned = new Owned[ops.size()];
    try (PreparedStatement s = ownedSql.prepare(connection, leases);
        ResultSet r = ownedSql.query(s)) {
      while (r.next()) {
        if (r.getBoolean(6)) {
          owned[r.getInt(1) - 1] =
              new Owned(r.getLong(2), r.getInt(3), r.getString(4), r.getString(5));
        }
      }
    }
    return owned;
  }

  /** The leases, as a table {@code x(x_job, x_epoch, x_owner, x_ord)}. */
  private static Table<?> leases(RenderedSql.Parameters p) {
    return table(
            "unnest({0}, {1}, {2}) with ordinality",
            p.bigints("ids"), p.bigints("epochs"), p.varchars("owners"))
        .as("x", "x_job", "x_epoch", "x_owner", "x_ord");
  }

  /** Locks the claim rows of the leases' hand-outs, in id order. */
  private static Query lockQuery(DSLContext dsl, RenderedSql.Parameters p) {
    FencingAppendClaim c = FENCING_APPEND_CLAIM;
    FencingAppendHandout h = FENCING_APPEND_HANDOUT;
    // a subquery per lease, so each is a look-up by key whatever the statistics say (a join let
    // the planner read the whole hand-out table before the first ANALYZE)
    Field<Long> claimOf =
        field(select(h.CLAIM_ID).from(h).where(h.JOB_ID.eq(X_JOB)).and(h.EPOCH.eq(X_EPOCH)));
    return dsl.select(c.ID)
        .from(c)
        .where(
            c.ID.eq(
                any(
                    field(
                        "array({0})",
                        SQLDataType.BIGINT.array(), select(claimOf).from(leases(p))))))
        .orderBy(c.ID)
        .forNoKeyUpdate();
  }

  /**
   * Each lease's hand-out and claim row, by position, with whether the lease owns its job now. An
   * earlier form tested the job's other rows as anti-joins (12 ms to plan and 8 ms to run for a
   * batch of 100), then as subqueries (which PostgreSQL turned into hashed subplans reading whole
   * tables before the first ANALYZE).
   */
  private static Query ownedQuery(
      DSLContext dsl, RenderedSql.Parameters p, Field<OffsetDateTime> at) {
    FencingAppendClaim c = FENCING_APPEND_CLAIM;
    FencingAppendHandout h = FENCING_APPEND_HANDOUT;
    // OFFSET 0 keeps the lateral subquery from being flattened into a join: each lease is two
    // look-ups by key, whatever the statistics say (a join read whole tables before the first
    // ANALYZE). A job given back is in its claim row's given_back, one handed out again was given
    // back or taken over (the row is then not live); one already done (its claim row still live
    // while others of its batch are open) has its end, looked up by key: without that look-up a
    // release, fail or renewal of a completed job was accepted, and a release handed it out again.
    Table<?> o =
        lateral(
                select(
                        h.CLAIM_ID,
                        h.ATTEMPT,
                        h.LAST_ERROR,
                        c.QUEUE,
                        field(
                                c.OWNER
                                    .eq(X_OWNER)
                                    .and(c.LIVE)
                                    .and(c.LEASE_EXPIRES_AT.gt(at))
                                    .and(not(X_JOB.eq(any(c.GIVEN_BACK))))
                                    .andNotExists(
                                        selectOne()
                                            .from(FENCING_APPEND_DONE)
                                            .where(FENCING_APPEND_DONE.JOB_ID.eq(X_JOB))))
                            .as("owned"))
                    .from(h)
                    .join(c)
                    .on(c.ID.eq(h.CLAIM_ID))
                    .where(h.JOB_ID.eq(X_JOB))
                    .and(h.EPOCH.eq(X_EPOCH))
                    .offset(inline(0)))
            .as("o");
    return dsl.select(
            X_ORD,
            o.field(h.CLAIM_ID),
            o.field(h.ATTEMPT),
            o.field(h.LAST_ERROR),
            o.field(c.QUEUE),
            o.field("owned", Boolean.class))
        .from(leases(p))
        .crossJoin(o);
  }
}
