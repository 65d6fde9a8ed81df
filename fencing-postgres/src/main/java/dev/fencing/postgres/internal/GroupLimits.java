package dev.fencing.postgres.internal;

import static org.jooq.impl.DSL.any;
import static org.jooq.impl.DSL.inline;
import static org.jooq.impl.DSL.name;

import dev.fencing.Job;
import dev.fencing.QueueLimits;
import dev.fencing.postgres.internal.jooq.tables.FencingParked;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.jooq.Condition;
import org.jspecify.annotations.Nullable;

/**
 * A queue's group limits and token buckets, on either engine, always under the queue's limit lock
 * ({@link RunningLimits}), which serializes the claims of a limited queue: so a group needs no lock
 * of its own.
 *
 * <p>A job of a group waits in {@code fencing_parked} (with its {@code grp}). A claim asks {@link
 * #startable} which of them may start: per group, as many as its running limit leaves room for
 * beside its jobs <em>under way</em> (a {@code fencing_limit_slot} row of the group whose job has
 * neither ended nor been given back: the engine's {@code underWay} test, whatever the lease), and
 * as its bucket holds tokens; with FIFO only its oldest parked job (its head), when due: one start
 * per group per claim. The engine's parked source takes grouped jobs only from that set ({@link
 * #startableOnly}); a job taken gets its group's slot ({@link #started}), which it keeps through
 * takeovers until it ends or is given back, so that an expired job of a group is taken over before
 * another starts.
 *
 * <p>A bucket is a {@code fencing_limit_state} row: {@code tokens} as of {@code refilled_at},
 * refilled evenly at {@code starts} per window up to {@code starts}, read and spent by the
 * statement's {@code statement_timestamp()}; a missing row or null tokens is a full bucket.
 */
public final class GroupLimits {

  private static final String REFILL =
      "least(?::float8, coalesce(t.tokens, ?::float8) + greatest(0, extract(epoch from"
          + " statement_timestamp() - coalesce(t.refilled_at, statement_timestamp())))"
          + " * 1000000 * ?::float8 / ?::float8)";

  private final String state;
  private final String slot;
  private final String parked;
  private final String tokensSql;
  private final String spendSql;
  private final String groupSlotSql;

  @Inject
  GroupLimits(Jdbc jdbc, Config config) {
    this.state = jdbc.dsl().render(name(config.schema(), "fencing_limit_state"));
    this.slot = jdbc.dsl().render(name(config.schema(), "fencing_limit_slot"));
    this.parked = jdbc.dsl().render(name(config.schema(), "fencing_parked"));
    this.tokensSql =
        "select "
            + REFILL
            + " from (select 1) o left join "
            + state
            + " t on t.queue = ? and t.grp = ?";
    this.spendSql =
        "insert into "
            + state
            + " as t (queue, grp, tokens, refilled_at) select ?, g.grp, ?::float8 - g.n,"
            + " statement_timestamp() from unnest(?::text[], ?::int[]) as g(grp, n)"
            + " on conflict (queue, grp) do update set tokens = "
            + REFILL
            + " - (?::float8 - excluded.tokens), refilled_at = statement_timestamp()";
    this.groupSlotSql =
        "insert into "
            + slot
            + " (queue, grp, job_id, epoch) select ?, s.g, s.j, s.e"
            + " from unnest(?::text[], ?::bigint[], ?::bigint[]) as s(g, j, e)"
            + " on conflict (queue, grp, job_id) do update set epoch = excluded.epoch";
  }

  /**
   * The engines' condition on a parked row {@code k}: not of a group, or startable (parameters
   * {@code groups_open}, 1 when every group is, and {@code startable}, bound by {@link #bind}).
   */
  public static Condition startableOnly(FencingParked k, RenderedSql.Parameters p) {
    return k.GRP
        .isNull()
        .or(p.integer("groups_open").eq(inline(1)))
        .or(k.JOB_ID.eq(any(p.bigints("startable"))));
  }

  /** Binds {@link #startableOnly}'s parameters into {@code values}: all when null. */
  public static Map<String, Object> bind(Map<String, Object> values, Long @Nullable [] startable) {
    values.put("groups_open", startable == null ? 1 : 0);
    values.put("startable", startable == null ? new Long[0] : startable);
    return values;
  }

  /** The tokens the bucket of {@code grp} holds now, refilled. */
  double tokens(Connection connection, String queue, String grp, QueueLimits.Rate rate)
      throws SQLException {
    try (PreparedStatement s = connection.prepareStatement(tokensSql)) {
      int at = refill(s, 1, rate);
      s.setString(at, queue);
      s.setString(at + 1, grp);
      try (ResultSet r = s.executeQuery()) {
        r.next();
        return r.getDouble(1);
      }
    }
  }

  /** Takes from the bucket of each group of {@code counts} its count of tokens, refilled first. */
  void spend(
      Connection connection, String queue, QueueLimits.Rate rate, Map<String, Integer> counts)
      throws SQLException {
    try (PreparedStatement s = connection.prepareStatement(spendSql)) {
      s.setString(1, queue);
      s.setDouble(2, rate.starts());
      s.setArray(3, connection.createArrayOf("text", counts.keySet().toArray(String[]::new)));
      s.setArray(4, connection.createArrayOf("integer", counts.values().toArray(Integer[]::new)));
      int at = refill(s, 5, rate);
      s.setDouble(at, rate.starts());
      s.executeUpdate();
    }
  }

  private static int refill(PreparedStatement s, int at, QueueLimits.Rate rate)
      throws SQLException {
    s.setDouble(at, rate.starts());
    s.setDouble(at + 1, rate.starts());
    s.setDouble(at + 2, rate.starts());
    s.setDouble(at + 3, rate.per().toNanos() / 1_000.0);
    return at + 4;
  }

  /**
   * The parked jobs of the queue's groups that may start now, with their groups, after deleting the
   * slots of jobs no longer under way ({@code underWay}, the engine's test on slot {@code s}).
   */
  Map<Long, String> startable(
      Connection connection, String queue, QueueLimits limits, String underWay)
      throws SQLException {
    return startable(connection, queue, limits, underWay, true);
  }

  /**
   * How many of the queue's due grouped jobs their groups' limits hold back now, read without a
   * lock and without a write.
   */
  long heldBack(Connection connection, String queue, QueueLimits limits, String underWay)
      throws SQLException {
    long due;
    try (PreparedStatement s =
        connection.prepareStatement(
            "select count(*) from "
                + parked
                + " k where k.queue = ? and k.grp is not null and k.ready_at <= now()")) {
      s.setString(1, queue);
      try (ResultSet r = s.executeQuery()) {
        r.next();
        due = r.getLong(1);
      }
    }
    return Math.max(0, due - startable(connection, queue, limits, underWay, false).size());
  }

  private Map<Long, String> startable(
      Connection connection, String queue, QueueLimits limits, String underWay, boolean clean)
      throws SQLException {
    if (!clean) {
      return query(connection, queue, limits, underWay);
    }
    try (PreparedStatement s =
        connection.prepareStatement(
            "delete from "
                + slot
                + " s where s.queue = ? and s.grp <> '"
                + RunningLimits.QUEUE_OWN
                + "' and not ("
                + underWay
                + ")")) {
      s.setString(1, queue);
      s.executeUpdate();
    }
    return query(connection, queue, limits, underWay);
  }

  private Map<Long, String> query(
      Connection connection, String queue, QueueLimits limits, String underWay)
      throws SQLException {
    QueueLimits.Rate rate = limits.ratePerGroup().orElse(null);
    boolean fifo = limits.fifoPerGroup();
    String sql =
        "with held as (select s.grp, count(*) as n from "
            + slot
            + " s where s.queue = ? and s.grp <> '"
            + RunningLimits.QUEUE_OWN
            + "' and ("
            + underWay
            + ") group by s.grp),"
            + " w as (select k.job_id, k.grp, k.ready_at <= now() as due,"
            + " row_number() over o as rn, bool_and(k.ready_at <= now()) over o as head_due from "
            + parked
            + " k where k.queue = ? and k.grp is not null"
            // without FIFO a group's due jobs go by the queue's order; with it, all by age
            + (fifo ? "" : " and k.ready_at <= now()")
            + " window o as (partition by k.grp order by "
            + (fifo ? "k.job_id" : "k.priority desc, k.ready_at, k.job_id")
            + "))"
            + " select w.job_id, w.grp from w left join held h on h.grp = w.grp left join "
            + state
            + " t on t.queue = ? and t.grp = w.grp"
            + " where w.due and w.head_due and w.rn <= ?::bigint - coalesce(h.n, 0)"
            // with FIFO a claim starts a group's head only: taken with others of its group, a
            // later one could go first by priority or ready time in the engine's merge
            + (fifo ? " and w.rn = 1" : "")
            + (rate == null ? "" : " and w.rn <= floor(" + REFILL + ")")
            + " order by w.job_id";
    Map<Long, String> startable = new LinkedHashMap<>();
    try (PreparedStatement s = connection.prepareStatement(sql)) {
      s.setString(1, queue);
      s.setString(2, queue);
      s.setString(3, queue);
      s.setLong(4, limits.runningLimitPerGroup().orElse(Integer.MAX_VALUE));
      if (rate != null) {
        refill(s, 5, rate);
      }
      try (ResultSet r = s.executeQuery()) {
        while (r.next()) {
          startable.put(r.getLong(1), r.getString(2));
        }
      }
    }
    return startable;
  }

  /**
   * Gives each of {@code jobs} that started from {@code startable} its group's slot, and spends its
   * group's token.
   */
  void started(
      Connection connection,
      String queue,
      QueueLimits limits,
      Map<Long, String> startable,
      List<Job> jobs)
      throws SQLException {
    List<String> groups = new ArrayList<>();
    List<Long> ids = new ArrayList<>();
    List<Long> epochs = new ArrayList<>();
    Map<String, Integer> counts = new TreeMap<>();
    for (Job job : jobs) {
      String group = startable.get(job.id());
      if (group != null) {
        groups.add(group);
        ids.add(job.id());
        epochs.add(job.lease().epoch().value());
        counts.merge(group, 1, Integer::sum);
      }
    }
    if (ids.isEmpty()) {
      return;
    }
    try (PreparedStatement s = connection.prepareStatement(groupSlotSql)) {
      s.setString(1, queue);
      s.setArray(2, connection.createArrayOf("text", groups.toArray(String[]::new)));
      s.setArray(3, connection.createArrayOf("bigint", ids.toArray(Long[]::new)));
      s.setArray(4, connection.createArrayOf("bigint", epochs.toArray(Long[]::new)));
      s.executeUpdate();
    }
    QueueLimits.Rate rate = limits.ratePerGroup().orElse(null);
    if (rate != null) {
      spend(connection, queue, rate, counts);
    }
  }
}
