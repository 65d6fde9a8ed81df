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
import java.util.Map;
import java.util.OptionalInt;
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
  public static final String QUEUE_OWN = "";

  private final Jdbc jdbc;
  private final Config config;
  private final GroupLimits groups;
  private final LimitSettings settings;
  private final String slotSql;
  private final String slottedSql;
  private final String shareSql;
  private final String countSql;
  private final String heldSql;

  @Inject
  RunningLimits(Jdbc jdbc, Config config, GroupLimits groups, LimitSettings settings) {
    this.jdbc = jdbc;
    this.config = config;
    this.groups = groups;
    this.settings = settings;
    // the schema passed Validate.identifier; jOOQ quotes it
    String state = table(jdbc, config, "fencing_limit_state");
    String slot = table(jdbc, config, "fencing_limit_slot");
    this.slotSql =
        "insert into "
            + slot
            + " (queue, grp, job_id, epoch) select ?, '"
            + QUEUE_OWN
            + "', s.j, s.e from unnest(?::bigint[], ?::bigint[]) as s(j, e)"
            + " on conflict (queue, grp, job_id) do update set epoch = excluded.epoch";
    this.slottedSql =
        "select 1 from " + slot + " where job_id = any(?) and grp = '" + QUEUE_OWN + "' limit 1";
    this.shareSql =
        "select 1 from "
            + state
            + " t where (t.queue, t.grp) in (select s.queue, s.grp from "
            + slot
            + " s where s.job_id = any(?) and s.grp = '"
            + QUEUE_OWN
            + "') order by t.queue, t.grp for share";
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
    return settings.limits(queue);
  }

  /** As {@link LimitSettings#setLimits}. */
  public QueueLimits setLimits(String queue, QueueLimits limits, @Nullable SlotTests tests) {
    return settings.setLimits(queue, limits, tests);
  }

  /** Whether the queue has a limit: its claims then go through {@link #claim}. */
  public boolean limited(Connection connection, String queue) throws SQLException {
    return !settings.read(connection, queue).isNone();
  }

  /**
   * An engine's claim of at most {@code n} jobs, in the transaction of {@link #claim}: of the
   * parked jobs of a group, only those of {@code startable} (all when null); with {@code
   * agingMicros} above 0, in the aged order ({@link QueueLimits#withPriorityAging}).
   */
  @FunctionalInterface
  public interface Claim {
    List<Job> take(Connection connection, int n, Long @Nullable [] startable, long agingMicros)
        throws SQLException;
  }

  private static long agingMicros(QueueLimits limits) {
    return limits.priorityAging().map(a -> a.toNanos() / 1_000).orElse(0L);
  }

  /**
   * Claims in one transaction at most {@code batchSize} jobs, and when the queue has limits no more
   * than they allow (see {@link #claim(Connection, String, SlotTests, int, Claim)}).
   */
  public List<Job> claim(String queue, SlotTests tests, int batchSize, Claim claim) {
    return jdbc.transaction(c -> claim(c, queue, tests, batchSize, claim));
  }

  /**
   * Claims, in the transaction of {@code connection}, at most {@code batchSize} jobs, and when the
   * queue has limits no more than they allow: no more than its running limit's free slots ({@code
   * tests.valid()} is the engine's test that the lease of slot {@code s} ({@code s.job_id}, {@code
   * s.epoch}) is valid at {@code clock_timestamp()}), than its bucket's tokens, and of a group's
   * parked jobs only those {@link GroupLimits#startable} names.
   */
  private List<Job> claim(
      Connection connection, String queue, SlotTests tests, int batchSize, Claim claim)
      throws SQLException {
    QueueLimits limits = settings.read(connection, queue);
    if (!limits.limitsClaims()) {
      return claim.take(connection, batchSize, null, agingMicros(limits));
    }
    OptionalInt max = limits.runningLimit();
    if (max.isPresent() && heldBefore(connection, queue, tests.valid()) >= max.getAsInt()) {
      // full as far as can be seen without the lock: a claim that finds none leaves the lock to
      // those that free a slot (renewals wait for it too), and answers nothing, which is safe
      return new ArrayList<>();
    }
    settings.lock(connection, queue);
    limits = settings.read(connection, queue); // as they are now: set under the same lock
    if (!limits.limitsClaims()) {
      return claim.take(connection, batchSize, null, agingMicros(limits));
    }
    max = limits.runningLimit();
    int n = batchSize;
    if (max.isPresent()) {
      n = (int) Math.min(n, Math.max(0, max.getAsInt() - held(connection, queue, tests.valid())));
    }
    QueueLimits.Rate rate = limits.rate().orElse(null);
    if (rate != null) {
      n = (int) Math.min(n, Math.floor(groups.tokens(connection, queue, QUEUE_OWN, rate)));
    }
    if (n <= 0) {
      return new ArrayList<>();
    }
    Map<Long, String> startable =
        limits.limitsGroups()
            ? groups.startable(connection, queue, limits, tests.underWay())
            : null;
    List<Job> jobs =
        claim.take(
            connection,
            n,
            startable == null ? null : startable.keySet().toArray(Long[]::new),
            agingMicros(limits));
    if (jobs.isEmpty()) {
      return jobs;
    }
    if (max.isPresent()) {
      insertSlots(connection, queue, jobs);
    }
    if (rate != null) {
      groups.spend(connection, queue, rate, Map.of(QUEUE_OWN, jobs.size()));
    }
    if (startable != null) {
      groups.started(connection, queue, limits, startable, jobs);
    }
    return jobs;
  }

  /**
   * What holds the queue's jobs back now: a limit of the whole queue ({@code queueFull}: its
   * running limit reached, or its rate without a token), or else {@code groupHeld} due jobs of
   * groups held back by their groups' limits.
   */
  public record Held(boolean queueFull, long groupHeld) {}

  /** What holds the queue's jobs back now, read without a lock or a write. */
  public Held held(String queue, SlotTests tests) {
    Validate.identifier("queue", queue);
    return jdbc.runRetried(
        c -> {
          QueueLimits limits = settings.read(c, queue);
          OptionalInt max = limits.runningLimit();
          QueueLimits.Rate rate = limits.rate().orElse(null);
          boolean full =
              (max.isPresent() && heldBefore(c, queue, tests.valid()) >= max.getAsInt())
                  || (rate != null && groups.tokens(c, queue, QUEUE_OWN, rate) < 1);
          if (full || !limits.limitsGroups()) {
            return new Held(full, 0);
          }
          return new Held(false, groups.heldBack(c, queue, limits, tests.underWay()));
        });
  }

  /** The queue's own slots left after deleting those not valid at {@code clock_timestamp()}. */
  private long held(Connection connection, String queue, String valid) throws SQLException {
    try (PreparedStatement s = connection.prepareStatement(countSql.formatted(valid))) {
      s.setString(1, queue);
      s.setString(2, queue);
      try (ResultSet r = s.executeQuery()) {
        r.next();
        return r.getLong(1);
      }
    }
  }

  private void insertSlots(Connection connection, String queue, List<Job> jobs)
      throws SQLException {
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

  /** The leases' jobs. */
  public static List<Long> ids(List<Lease> leases) {
    List<Long> ids = new ArrayList<>(leases.size());
    for (Lease lease : leases) {
      ids.add(lease.jobId());
    }
    return ids;
  }
}
