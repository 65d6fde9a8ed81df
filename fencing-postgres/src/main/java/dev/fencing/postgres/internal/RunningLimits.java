package dev.fencing.postgres.internal;

import static org.jooq.impl.DSL.name;

import dev.fencing.Job;
import dev.fencing.Lease;
import dev.fencing.QueueLimits;
import dev.fencing.internal.Validate;
import jakarta.inject.Inject;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A queue's running limit ({@link QueueLimits}), on either engine: at every moment the jobs of the
 * queue whose leases are valid never outnumber {@code max_running} (docs/design/ISSUE-36.md,
 * section 3; checked in TLA+: {@code spec/Limit.cfg}, and {@code LimitRenewWithoutLock.cfg} for the
 * renewal without the lock, which breaks it).
 *
 * <p>A claim under the limit first counts the valid slots without a lock, and answers nothing when
 * they fill the limit (safe: it hands nothing out), so that a full queue's idle claimers do not
 * keep the lock from the renewals and claims that need it. Otherwise it holds the queue's {@code
 * fencing_limit_state} row {@code FOR NO KEY UPDATE} for its whole transaction: after the lock, in
 * a new statement (a new snapshot in READ COMMITTED, the isolation every transaction of the library
 * runs in), it deletes the slots whose lease is no longer valid at {@code clock_timestamp()},
 * claims at most as many jobs as there are free slots, and inserts a slot per job it hands out. A
 * renewal of a slotted job takes the same row {@code FOR SHARE} and judges its lease at {@code
 * clock_timestamp()} after the lock: a renewal that began before the lease ran out cannot make it
 * valid again after a claim counted it expired (the transaction's {@code now()} would let it).
 * Commits and fails take no lock: they only end leases, and a lease ended frees its slot for the
 * next claim, which finds it invalid.
 */
public final class RunningLimits {

  /** The queue's own limit; a group's carries the group's key. */
  private static final String QUEUE_OWN = "";

  private final Jdbc jdbc;
  private final Config config;
  private final String probeSql;
  private final String lockSql;
  private final String stateSql;
  private final String setSql;
  private final String slotSql;
  private final String slottedSql;
  private final String shareSql;
  private final String countSql;
  private final String heldSql;

  @Inject
  RunningLimits(Jdbc jdbc, Config config) {
    this.jdbc = jdbc;
    this.config = config;
    // the schema passed Validate.identifier; jOOQ quotes it
    String limit = table(jdbc, config, "fencing_queue_limit");
    String state = table(jdbc, config, "fencing_limit_state");
    String slot = table(jdbc, config, "fencing_limit_slot");
    this.probeSql = "select max_running from " + limit + " where queue = ?";
    this.lockSql =
        "select 1 from "
            + state
            + " where queue = ? and grp = '"
            + QUEUE_OWN
            + "' for no key update";
    this.stateSql =
        "insert into "
            + state
            + " (queue, grp) values (?, '"
            + QUEUE_OWN
            + "') on conflict (queue, grp) do nothing";
    this.setSql =
        "insert into "
            + limit
            + " as l (queue, max_running) values (?, ?) on conflict (queue) do update"
            + " set max_running = excluded.max_running, revision = l.revision + 1,"
            + " updated_at = now()";
    this.slotSql =
        "insert into "
            + slot
            + " (queue, grp, job_id, epoch) select ?, '"
            + QUEUE_OWN
            + "', s.j, s.e from unnest(?::bigint[], ?::bigint[]) as s(j, e)"
            + " on conflict (queue, grp, job_id) do update set epoch = excluded.epoch";
    this.slottedSql = "select 1 from " + slot + " where job_id = any(?) limit 1";
    this.shareSql =
        "select 1 from "
            + state
            + " t where (t.queue, t.grp) in (select s.queue, s.grp from "
            + slot
            + " s where s.job_id = any(?)) order by t.queue, t.grp for share";
    this.heldSql =
        "select count(*) from "
            + slot
            + " s where s.queue = ? and s.grp = '"
            + QUEUE_OWN
            + "' and (%s)";
    // the slots left, all of them valid at clock_timestamp(): one snapshot, so total - deleted
    this.countSql =
        "with d as (delete from "
            + slot
            + " s where s.queue = ? and s.grp = '"
            + QUEUE_OWN
            + "' and not (%s) returning 1)"
            + " select (select count(*) from "
            + slot
            + " where queue = ? and grp = '"
            + QUEUE_OWN
            + "') - (select count(*) from d)";
  }

  private static String table(Jdbc jdbc, Config config, String table) {
    return jdbc.dsl().render(name(config.schema(), table));
  }

  /** {@code table} of the library's schema, quoted, for a statement's text. */
  public String table(String table) {
    return table(jdbc, config, table);
  }

  /** The queue's limits as stored. */
  public QueueLimits limits(String queue) {
    Validate.identifier("queue", queue);
    Integer max = jdbc.runRetried(c -> maxRunning(c, queue));
    return max == null ? QueueLimits.NONE : QueueLimits.maxRunning(max);
  }

  /**
   * Sets the queue's limits under the limit's lock (creating its state row), returning those they
   * replace: one transaction, which a claim under the old limit finishes before.
   */
  public QueueLimits setLimits(String queue, QueueLimits limits) {
    Validate.identifier("queue", queue);
    if (limits == null) {
      throw new IllegalArgumentException("limits must not be null; use QueueLimits.NONE");
    }
    Integer max = limits.runningLimit().isPresent() ? limits.runningLimit().getAsInt() : null;
    Integer before =
        jdbc.transactionRetried(
            c -> {
              lock(c, queue);
              Integer previous = maxRunning(c, queue);
              try (PreparedStatement s = c.prepareStatement(setSql)) {
                s.setString(1, queue);
                s.setObject(2, max, java.sql.Types.INTEGER);
                s.executeUpdate();
              }
              return previous;
            });
    return before == null ? QueueLimits.NONE : QueueLimits.maxRunning(before);
  }

  /** The queue's running limit, one look-up by key; null when it has none. */
  public @Nullable Integer maxRunning(Connection connection, String queue) throws SQLException {
    try (PreparedStatement s = connection.prepareStatement(probeSql)) {
      s.setString(1, queue);
      try (ResultSet r = s.executeQuery()) {
        return r.next() ? (Integer) r.getObject(1) : null;
      }
    }
  }

  /** An engine's claim of at most {@code n} jobs, in the transaction of {@link #claim}. */
  @FunctionalInterface
  public interface Claim {
    List<Job> take(Connection connection, int n) throws SQLException;
  }

  /**
   * Claims in one transaction at most {@code batchSize} jobs, and when the queue has a running
   * limit no more than its free slots (see {@link #claim(Connection, String, String, int, Claim)}).
   */
  public List<Job> claim(String queue, String valid, int batchSize, Claim claim) {
    return jdbc.transaction(c -> claim(c, queue, valid, batchSize, claim));
  }

  /**
   * Claims, in the transaction of {@code connection}, at most {@code batchSize} jobs, and when the
   * queue has a running limit no more than its free slots: {@code valid} is the engine's test that
   * the lease of slot {@code s} ({@code s.job_id}, {@code s.epoch}) is valid at {@code
   * clock_timestamp()}.
   */
  private List<Job> claim(
      Connection connection, String queue, String valid, int batchSize, Claim claim)
      throws SQLException {
    Integer limit = maxRunning(connection, queue);
    if (limit == null) {
      return claim.take(connection, batchSize);
    }
    if (heldBefore(connection, queue, valid) >= limit) {
      // full as far as can be seen without the lock: a claim that finds none leaves the lock to
      // those that free a slot (renewals wait for it too), and answers nothing, which is safe
      return new ArrayList<>();
    }
    lock(connection, queue);
    Integer max = maxRunning(connection, queue); // as it is now: set under the same lock
    if (max == null) {
      return claim.take(connection, batchSize);
    }
    long held;
    try (PreparedStatement s = connection.prepareStatement(countSql.formatted(valid))) {
      s.setString(1, queue);
      s.setString(2, queue);
      try (ResultSet r = s.executeQuery()) {
        r.next();
        held = r.getLong(1);
      }
    }
    int n = (int) Math.min(batchSize, Math.max(0, max - held));
    if (n == 0) {
      return new ArrayList<>();
    }
    List<Job> jobs = claim.take(connection, n);
    if (!jobs.isEmpty()) {
      Long[] ids = new Long[jobs.size()];
      Long[] epochs = new Long[jobs.size()];
      for (int i = 0; i < ids.length; i++) {
        ids[i] = jobs.get(i).id();
        epochs[i] = jobs.get(i).lease().epoch().value();
      }
      try (PreparedStatement s = connection.prepareStatement(slotSql)) {
        s.setString(1, queue);
        s.setArray(2, connection.createArrayOf("bigint", ids));
        s.setArray(3, connection.createArrayOf("bigint", epochs));
        s.executeUpdate();
      }
    }
    return jobs;
  }

  /** The queue's slots whose leases are valid, as committed before this statement: no lock. */
  private long heldBefore(Connection connection, String queue, String valid) throws SQLException {
    try (PreparedStatement s = connection.prepareStatement(heldSql.formatted(valid))) {
      s.setString(1, queue);
      try (ResultSet r = s.executeQuery()) {
        r.next();
        return r.getLong(1);
      }
    }
  }

  /** Whether a job of {@code jobIds} holds a slot of a limit: one probe of its index. */
  public boolean slotted(Connection connection, List<Long> jobIds) throws SQLException {
    try (PreparedStatement s = connection.prepareStatement(slottedSql)) {
      s.setArray(1, connection.createArrayOf("bigint", jobIds.toArray(Long[]::new)));
      try (ResultSet r = s.executeQuery()) {
        return r.next();
      }
    }
  }

  /**
   * Takes, in the transaction of {@code connection}, the limits' rows of the slots of {@code
   * jobIds} {@code FOR SHARE}, in order: a renewal's guard, after which its statements judge leases
   * at {@code clock_timestamp()}.
   */
  public void share(Connection connection, List<Long> jobIds) throws SQLException {
    Array ids = connection.createArrayOf("bigint", jobIds.toArray(Long[]::new));
    try (PreparedStatement s = connection.prepareStatement(shareSql)) {
      s.setArray(1, ids);
      try (ResultSet r = s.executeQuery()) {
        while (r.next()) {
          // locked, in (queue, grp) order
        }
      }
    }
  }

  /** Locks the queue's limit state row, created when missing. */
  private void lock(Connection connection, String queue) throws SQLException {
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

  /** The leases' jobs. */
  public static List<Long> ids(List<Lease> leases) {
    List<Long> ids = new ArrayList<>(leases.size());
    for (Lease lease : leases) {
      ids.add(lease.jobId());
    }
    return ids;
  }
}
