package dev.fencing.postgres.internal.inplace;

import static dev.fencing.postgres.internal.jooq.Tables.FENCING_JOB;
import static org.jooq.impl.DSL.currentOffsetDateTime;
import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.inline;
import static org.jooq.impl.DSL.name;

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
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Query;
import org.jooq.Table;

/**
 * Heartbeats: {@code renewAll}, a batch of leases in one statement ({@code renew} is a batch of
 * one). It is the compare-and-set of a commit (owner, epoch, running, unexpired) and sets the
 * expiry from the database clock. Each item of a batch is matched on its whole lease by its
 * position.
 */
final class Renewals {

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
    Instant[] plain =
        jdbc.runRetried(c -> limits.slotted(c, ids) ? null : renew(c, renewAllSql, values, order));
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
        renewals.add(new Renewal.Lost(lease, refusals.refusal(lease)));
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
        long micros = r.getLong(2);
        renewed[order[(int) r.getLong(1) - 1]] = LeaseSql.instant(micros);
      }
      return renewed;
    }
  }

  private static Query renewAllQuery(DSLContext dsl, RenderedSql.Parameters parameters) {
    return renewAllQuery(dsl, parameters, LeaseSql.ownsEach());
  }

  private static Query lockedRenewAllQuery(DSLContext dsl, RenderedSql.Parameters parameters) {
    return renewAllQuery(dsl, parameters, LeaseSql.ownsEach(LeaseSql.CLOCK));
  }

  private static Query renewAllQuery(
      DSLContext dsl, RenderedSql.Parameters parameters, Condition owns) {
    FencingJob j = FENCING_JOB;
    Table<?> v = LeaseArrays.unnest(parameters, Map.of());
    return dsl.update(j)
        .set(j.LEASE_EXPIRES_AT, LeaseSql.nowPlusMicros(parameters.bigint("micros")))
        .set(j.LAST_EVENT, inline("renewed"))
        .set(j.UPDATED_AT, currentOffsetDateTime())
        .from(v)
        .where(owns)
        .returning(field(name("v_ord"), Long.class), LeaseSql.micros(j.LEASE_EXPIRES_AT));
  }
}
