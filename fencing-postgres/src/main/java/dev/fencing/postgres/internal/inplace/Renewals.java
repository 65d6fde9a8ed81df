package dev.fencing.postgres.internal.inplace;

import static dev.fencing.postgres.internal.jooq.Tables.FENCING_JOB;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_LIMIT_SLOT;
import static org.jooq.impl.DSL.any;
import static org.jooq.impl.DSL.currentOffsetDateTime;
import static org.jooq.impl.DSL.exists;
import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.inline;
import static org.jooq.impl.DSL.name;
import static org.jooq.impl.DSL.select;
import static org.jooq.impl.DSL.selectOne;

import dev.fencing.Lease;
import dev.fencing.Renewal;
import dev.fencing.internal.Validate;
import dev.fencing.postgres.internal.Jdbc;
import dev.fencing.postgres.internal.LeaseArrays;
import dev.fencing.postgres.internal.LeaseSql;
import dev.fencing.postgres.internal.RenderedSql;
import dev.fencing.postgres.internal.RunningLimits;
import dev.fencing.postgres.internal.jooq.tables.FencingJob;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jooq.CommonTableExpression;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Query;
import org.jooq.Record2;
import org.jooq.Table;
import org.jooq.UpdateResultStep;

/**
 * Heartbeats: {@code renewAll}, a batch of leases in one statement ({@code renew} is a batch of
 * one). It is the compare-and-set of a commit (owner, epoch, running, unexpired) and sets the
 * expiry from the database clock. Each item of a batch is matched on its whole lease by its
 * position.
 */
final class Renewals {

  /** The answer of the unlocked renewal when a job holds a running limit's slot. */
  private static final long SLOTTED = -1;

  private final Jdbc jdbc;
  private final InPlaceRefusals refusals;
  private final RunningLimits limits;
  private final RenderedSql renewAllSql;
  private final RenderedSql lockedRenewAllSql;

  @Inject
  Renewals(Jdbc jdbc, InPlaceRefusals refusals, RunningLimits limits) {
    this.jdbc = jdbc;
    this.refusals = refusals;
    this.limits = limits;
    this.renewAllSql =
        RenderedSql.of(jdbc.dsl(), RenderedSql.Plan.INDEXED, Renewals::renewAllQuery);
    this.lockedRenewAllSql =
        RenderedSql.of(jdbc.dsl(), RenderedSql.Plan.INDEXED, Renewals::lockedRenewAllQuery);
  }

  List<Renewal> renewAll(List<Lease> leases, Duration leaseLength) {
    Objects.requireNonNull(leases, "leases");
    Validate.leaseLength(leaseLength);
    int n = leases.size();
    for (int i = 0; i < n; i++) {
      Objects.requireNonNull(leases.get(i), "leases[" + i + "]");
    }
    if (n == 0) {
      return List.of();
    }
    // Sent, and so locked, in job id order, as the batched commit locks its rows (see Commits).
    Integer[] order = new Integer[n];
    for (int i = 0; i < n; i++) {
      order[i] = i;
    }
    Arrays.sort(order, Comparator.comparingLong(i -> leases.get(i).jobId()));
    List<Lease> sorted = new ArrayList<>(n);
    for (int k = 0; k < n; k++) {
      sorted.add(leases.get(order[k]));
    }
    Map<String, Object> values = LeaseArrays.of(sorted).values();
    values.put("micros", leaseLength.toNanos() / 1_000);
    List<Long> ids = RunningLimits.ids(sorted);
    Map<String, Object> probed = new HashMap<>(values);
    probed.put("slotIds", ids.toArray(Long[]::new));
    // one statement, which renews nothing when a job holds a running limit's slot
    Instant[] plain = jdbc.runRetried(c -> renew(c, renewAllSql, probed, order));
    // jobs under a running limit: its lock, then each lease judged as the clock reads then
    Instant[] expiries =
        plain != null
            ? plain
            : jdbc.transactionRetried(
                c -> {
                  limits.share(c, ids);
                  return renew(c, lockedRenewAllSql, values, order);
                });
    // The same lease twice in one batch updates its row once; the copies share its outcome.
    Map<List<Object>, Integer> first = new HashMap<>();
    List<Renewal> renewals = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      Lease lease = leases.get(i);
      Integer earlier = first.putIfAbsent(List.of(lease.jobId(), lease.owner(), lease.epoch()), i);
      if (earlier != null) {
        renewals.add(renewals.get(earlier));
      } else if (expiries[i] != null) {
        renewals.add(
            new Renewal.Renewed(
                new Lease(lease.jobId(), lease.owner(), lease.epoch(), expiries[i])));
      } else {
        renewals.add(
            new Renewal.Lost(lease, refusals.recorded(lease, "renew", refusals.refusal(lease))));
      }
    }
    return renewals;
  }

  private static Instant[] renew(
      Connection c, RenderedSql sql, Map<String, Object> values, Integer[] order)
      throws SQLException {
    try (PreparedStatement s = sql.prepare(c, values);
        ResultSet r = sql.query(s)) {
      Instant[] renewed = new Instant[order.length];
      while (r.next()) {
        if (r.getLong(1) == SLOTTED) {
          return null;
        }
        long micros = r.getLong(2);
        renewed[order[(int) r.getLong(1) - 1]] = LeaseSql.instant(micros);
      }
      return renewed;
    }
  }

  /**
   * The renewal of jobs none of which holds a running limit's slot: it renews nothing, and answers
   * one row {@link #SLOTTED}, when one does (one probe of {@code fencing_limit_slot_job_ix}).
   */
  private static Query renewAllQuery(DSLContext dsl, RenderedSql.Parameters parameters) {
    Field<Boolean> slotted =
        field(
            exists(
                selectOne()
                    .from(FENCING_LIMIT_SLOT)
                    .where(FENCING_LIMIT_SLOT.JOB_ID.eq(any(parameters.bigints("slotIds"))))
                    // a group's slot holds until its job ends, whatever its lease: no lock
                    .and(FENCING_LIMIT_SLOT.GRP.eq(inline(RunningLimits.QUEUE_OWN)))));
    CommonTableExpression<?> renewed =
        name("renewed")
            .fields("r_ord", "r_micros")
            .as(renewAll(dsl, parameters, LeaseSql.ownsEach().andNot(slotted)));
    return dsl.with(renewed)
        .select(field(name("r_ord"), Long.class), field(name("r_micros"), Long.class))
        .from(renewed)
        .unionAll(select(inline(SLOTTED), inline(0L)).where(slotted));
  }

  /** The renewal of jobs under a running limit, judged as the clock reads under its lock. */
  private static Query lockedRenewAllQuery(DSLContext dsl, RenderedSql.Parameters parameters) {
    return renewAll(dsl, parameters, LeaseSql.ownsEach(LeaseSql.CLOCK));
  }

  private static UpdateResultStep<Record2<Long, Long>> renewAll(
      DSLContext dsl, RenderedSql.Parameters parameters, Condition owns) {
    FencingJob j = FENCING_JOB;
    Table<?> v = LeaseArrays.unnest(parameters, Map.of());
    return dsl.update(j)
        .set(j.LEASE_EXPIRES_AT, LeaseSql.nowPlusMicros(parameters.bigint("micros")))
        .set(j.LAST_EVENT, inline("renewed"))
        .set(j.UPDATED_AT, currentOffsetDateTime())
        .from(v)
        .where(owns)
        .returningResult(field(name("v_ord"), Long.class), LeaseSql.micros(j.LEASE_EXPIRES_AT));
  }
}
