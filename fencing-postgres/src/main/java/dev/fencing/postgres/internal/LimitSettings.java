package dev.fencing.postgres.internal;

import static dev.fencing.postgres.internal.jooq.Tables.FENCING_QUEUE_LIMIT;
import static org.jooq.impl.DSL.name;
import static org.jooq.impl.DSL.notExists;
import static org.jooq.impl.DSL.selectOne;

import dev.fencing.QueueLimits;
import dev.fencing.internal.Validate;
import dev.fencing.postgres.internal.jooq.tables.FencingQueueLimit;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Duration;
import java.util.OptionalInt;
import org.jooq.Condition;
import org.jooq.Field;
import org.jspecify.annotations.Nullable;

/**
 * A queue's limits as the store keeps them ({@code fencing_queue_limit}, one row per queue) and the
 * lock that guards them and every claim of a limited queue ({@code fencing_limit_state (queue,
 * '')}): read by key, set under the lock, with the slots of the jobs already under way seeded in
 * the same transaction. {@link RunningLimits} counts and claims under them.
 */
public final class LimitSettings {

  private final Jdbc jdbc;
  private final Config config;
  private final String probeSql;
  private final String lockSql;
  private final String stateSql;
  private final String setSql;

  @Inject
  LimitSettings(Jdbc jdbc, Config config) {
    this.jdbc = jdbc;
    this.config = config;
    // the schema passed Validate.identifier; jOOQ quotes it
    String limit = table("fencing_queue_limit");
    String state = table("fencing_limit_state");
    this.probeSql =
        "select max_running, rate_starts, rate_per_us, group_max_running, group_rate_starts,"
            + " group_rate_per_us, fifo_per_group, aging_us from "
            + limit
            + " where queue = ?";
    this.lockSql =
        "select 1 from "
            + state
            + " where queue = ? and grp = '"
            + RunningLimits.QUEUE_OWN
            + "' for no key update";
    this.stateSql =
        "insert into "
            + state
            + " (queue, grp) values (?, '"
            + RunningLimits.QUEUE_OWN
            + "') on conflict (queue, grp) do nothing";
    this.setSql =
        "insert into "
            + limit
            + " as l (queue, max_running, rate_starts, rate_per_us, rate_burst, group_max_running,"
            + " group_rate_starts, group_rate_per_us, group_rate_burst, fifo_per_group, aging_us)"
            + " values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) on conflict (queue) do update"
            + " set max_running = excluded.max_running, rate_starts = excluded.rate_starts,"
            + " rate_per_us = excluded.rate_per_us, rate_burst = excluded.rate_burst,"
            + " group_max_running = excluded.group_max_running,"
            + " group_rate_starts = excluded.group_rate_starts,"
            + " group_rate_per_us = excluded.group_rate_per_us,"
            + " group_rate_burst = excluded.group_rate_burst,"
            + " fifo_per_group = excluded.fifo_per_group, aging_us = excluded.aging_us,"
            + " revision = l.revision + 1,"
            + " updated_at = now()";
  }

  private String table(String table) {
    return jdbc.dsl().render(name(config.schema(), table));
  }

  /**
   * Whether {@code queue} has no controls (no limit, no aging): the gate of an engine's fast claim,
   * an uncorrelated probe of {@code fencing_queue_limit} by key that PostgreSQL evaluates once.
   */
  public static Condition noControls(Field<String> queue) {
    FencingQueueLimit l = FENCING_QUEUE_LIMIT;
    return notExists(
        selectOne()
            .from(l)
            .where(l.QUEUE.eq(queue))
            .and(
                l.MAX_RUNNING
                    .isNotNull()
                    .or(l.RATE_STARTS.isNotNull())
                    .or(l.GROUP_MAX_RUNNING.isNotNull())
                    .or(l.GROUP_RATE_STARTS.isNotNull())
                    .or(l.FIFO_PER_GROUP.isTrue())
                    .or(l.AGING_US.isNotNull())));
  }

  /** The queue's limits as stored. */
  public QueueLimits limits(String queue) {
    Validate.identifier("queue", queue);
    return jdbc.runRetried(c -> read(c, queue));
  }

  /**
   * Sets the queue's limits under the limit's lock (creating its state row), returning those they
   * replace: one transaction, which a claim under the old limit finishes before. With {@code tests}
   * (the engine's), seeds under the same lock a slot for each job of the queue already under way:
   * of the queue's running limit, and of its group's when it has one, so that jobs running when a
   * limit is set are counted (those no longer valid are deleted by the next claim, as any).
   */
  public QueueLimits setLimits(String queue, QueueLimits limits, @Nullable SlotTests tests) {
    Validate.identifier("queue", queue);
    if (limits == null) {
      throw new IllegalArgumentException("limits must not be null; use QueueLimits.NONE");
    }
    return jdbc.transactionRetried(
        c -> {
          lock(c, queue);
          QueueLimits previous = read(c, queue);
          try (PreparedStatement s = c.prepareStatement(setSql)) {
            s.setString(1, queue);
            setInt(s, 2, limits.runningLimit());
            setRate(s, 3, limits.rate().orElse(null));
            setInt(s, 6, limits.runningLimitPerGroup());
            setRate(s, 7, limits.ratePerGroup().orElse(null));
            s.setBoolean(10, limits.fifoPerGroup());
            s.setObject(
                11,
                limits.priorityAging().map(a -> a.toNanos() / 1_000).orElse(null),
                Types.BIGINT);
            s.executeUpdate();
          }
          if (tests != null) {
            seed(c, queue, limits, tests);
          }
          return previous;
        });
  }

  private void seed(Connection connection, String queue, QueueLimits limits, SlotTests tests)
      throws SQLException {
    String option = table("fencing_job_option");
    if (limits.runningLimit().isPresent()) {
      seed(
          connection,
          queue,
          "'" + RunningLimits.QUEUE_OWN + "', r.job_id, r.epoch from",
          "",
          tests);
    }
    if (limits.limitsGroups()) {
      seed(
          connection,
          queue,
          "o.grp, r.job_id, r.epoch from",
          " join " + option + " o on o.job_id = r.job_id and o.grp is not null",
          tests);
    }
  }

  private void seed(
      Connection connection, String queue, String columns, String join, SlotTests tests)
      throws SQLException {
    try (PreparedStatement s =
        connection.prepareStatement(
            "insert into "
                + table("fencing_limit_slot")
                + " (queue, grp, job_id, epoch) select ?, "
                + columns
                + " ("
                + tests.running()
                + ") r"
                + join
                + " on conflict (queue, grp, job_id) do nothing")) {
      s.setString(1, queue);
      s.setString(2, queue);
      s.executeUpdate();
    }
  }

  private static void setInt(PreparedStatement s, int at, OptionalInt value) throws SQLException {
    s.setObject(at, value.isPresent() ? value.getAsInt() : null, Types.INTEGER);
  }

  /** A rate as its three columns: starts, window in microseconds, burst (= starts). */
  private static void setRate(PreparedStatement s, int at, QueueLimits.@Nullable Rate rate)
      throws SQLException {
    s.setObject(at, rate == null ? null : rate.starts(), Types.INTEGER);
    s.setObject(at + 1, rate == null ? null : rate.per().toNanos() / 1_000, Types.BIGINT);
    s.setObject(at + 2, rate == null ? null : rate.starts(), Types.INTEGER);
  }

  /** The queue's limits, one look-up by key; {@link QueueLimits#NONE} when it has none. */
  public QueueLimits read(Connection connection, String queue) throws SQLException {
    try (PreparedStatement s = connection.prepareStatement(probeSql)) {
      s.setString(1, queue);
      try (ResultSet r = s.executeQuery()) {
        if (!r.next()) {
          return QueueLimits.NONE;
        }
        QueueLimits limits = QueueLimits.NONE;
        if (r.getObject(1) != null) {
          limits = limits.withMaxRunning(r.getInt(1));
        }
        if (r.getObject(2) != null) {
          limits = limits.withRate(r.getInt(2), Duration.ofNanos(r.getLong(3) * 1_000));
        }
        if (r.getObject(4) != null) {
          limits = limits.withMaxRunningPerGroup(r.getInt(4));
        }
        if (r.getObject(5) != null) {
          limits = limits.withRatePerGroup(r.getInt(5), Duration.ofNanos(r.getLong(6) * 1_000));
        }
        if (r.getObject(8) != null) {
          limits = limits.withPriorityAging(Duration.ofNanos(r.getLong(8) * 1_000));
        }
        return r.getBoolean(7) ? limits.withFifoPerGroup() : limits;
      }
    }
  }

  /** Locks the queue's limit state row, created when missing. */
  void lock(Connection connection, String queue) throws SQLException {
    for (int tries = 0; tries < 2; tries++) {
      try (PreparedStatement s = connection.prepareStatement(lockSql)) {
        s.setString(1, queue);
        try (ResultSet r = s.executeQuery()) {
          if (r.next()) {
            return;
          }
        }
      }
      try (PreparedStatement s = connection.prepareStatement(stateSql)) {
        s.setString(1, queue);
        s.executeUpdate();
      }
    }
    throw new IllegalStateException("the limit state row of queue '" + queue + "' vanished");
  }
}
