package dev.fencing.postgres.internal.append;

import static dev.fencing.postgres.internal.jooq.Tables.FENCING_APPEND_CLAIM;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_APPEND_JOB;
import static org.jooq.impl.DSL.any;
import static org.jooq.impl.DSL.name;

import dev.fencing.JobState;
import dev.fencing.Lease;
import dev.fencing.postgres.internal.Config;
import dev.fencing.postgres.internal.Jdbc;
import dev.fencing.postgres.internal.LeaseArrays;
import dev.fencing.postgres.internal.LeaseSql;
import dev.fencing.postgres.internal.OutboxWrites;
import dev.fencing.postgres.internal.RenderedSql;
import dev.fencing.postgres.internal.RunningLimits;
import dev.fencing.postgres.internal.jooq.tables.FencingAppendClaim;
import dev.fencing.postgres.internal.jooq.tables.FencingAppendJob;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.jooq.DSLContext;
import org.jooq.Query;

/**
 * Every write of a lease on the append-only engine, single or batched, as one transaction: lock the
 * claim rows the leases name and read which leases own their job then ({@link OwnedLeases}), and
 * write only for those: a {@code done} row for a commit (with its outbox messages) or a failure
 * without attempts left or final, a {@code requeue} row for a failure with attempts left or a
 * release ({@link SettledRows}), a new expiry of the claim row for a renewal; the claim row counts
 * off the jobs settled. Commits without outbox messages are one call of a PL/pgSQL function
 * instead.
 *
 * <p>A lease that did not own its job is explained afterwards from a fresh read ({@link
 * AppendRefusals}): a repeat of a write that landed (its acknowledgement lost) is accepted as a
 * repeat, anything else refused with the reason.
 */
final class AppendWrites {

  private final Jdbc jdbc;
  private final OwnedLeases owned;
  private final SettledRows rows;
  private final AppendRefusals refusals;
  private final RunningLimits limits;
  private final RenderedSql renewSql;
  private final String completeSql;

  @Inject
  AppendWrites(
      Jdbc jdbc,
      OwnedLeases owned,
      SettledRows rows,
      AppendRefusals refusals,
      RunningLimits limits,
      Config config) {
    this.jdbc = jdbc;
    this.limits = limits;
    this.owned = owned;
    this.rows = rows;
    this.refusals = refusals;
    DSLContext dsl = jdbc.dsl();
    this.renewSql = RenderedSql.of(dsl, RenderedSql.Plan.INDEXED, AppendWrites::renewQuery);
    // the schema passed Validate.identifier; jOOQ quotes it
    this.completeSql =
        "select o_ord from "
            + dsl.render(name(config.schema(), "fencing_append_complete"))
            + "(?, ?, ?, ?)";
  }

  /**
   * Runs {@code ops} in one transaction, retried after a transient failure.
   *
   * @throws IllegalArgumentException if a lease names a job that never existed
   */
  List<LeaseWrite.Outcome> write(List<LeaseWrite> ops) {
    LeaseWrite.Outcome[] outcomes =
        plainCommits(ops)
            ? jdbc.runRetried(c -> completeOnce(c, ops, new LeaseWrite.Outcome[ops.size()]))
            : jdbc.transactionRetried(c -> writeOnce(c, ops, new LeaseWrite.Outcome[ops.size()]));
    List<Integer> missed = new ArrayList<>();
    for (int i = 0; i < outcomes.length; i++) {
      if (outcomes[i] == null) {
        missed.add(i);
      }
    }
    if (!missed.isEmpty()) {
      refusals.explain(ops, missed, outcomes);
    }
    return List.of(outcomes);
  }

  /** Whether every write is a commit without outbox messages: one call does them all. */
  private static boolean plainCommits(List<LeaseWrite> ops) {
    for (LeaseWrite op : ops) {
      if (op.kind() != LeaseWrite.Kind.COMPLETE || !op.messages().isEmpty()) {
        return false;
      }
    }
    return true;
  }

  /**
   * Commits without messages as one call of {@code fencing_append_complete} (in {@code
   * schema-append.sql}), which does what {@link #writeOnce} does for them in one round trip: the
   * claim rows' locks are held for that call alone.
   */
  private LeaseWrite.Outcome[] completeOnce(
      Connection connection, List<LeaseWrite> ops, LeaseWrite.Outcome[] outcomes)
      throws SQLException {
    LeaseArrays leases = LeaseArrays.of(ops.stream().map(LeaseWrite::lease).toList());
    String[] results = new String[ops.size()];
    for (int i = 0; i < results.length; i++) {
      results[i] = ops.get(i).result();
    }
    try (PreparedStatement s = connection.prepareStatement(completeSql)) {
      s.setArray(1, connection.createArrayOf("bigint", leases.ids()));
      s.setArray(2, connection.createArrayOf("bigint", leases.epochs()));
      s.setArray(3, connection.createArrayOf("varchar", leases.owners()));
      s.setArray(4, connection.createArrayOf("text", results));
      try (ResultSet r = s.executeQuery()) {
        while (r.next()) {
          outcomes[r.getInt(1) - 1] =
              LeaseWrite.Outcome.accepted(ops.get(r.getInt(1) - 1).lease(), false);
        }
      }
    }
    return outcomes;
  }

  private LeaseWrite.Outcome[] writeOnce(
      Connection connection, List<LeaseWrite> ops, LeaseWrite.Outcome[] outcomes)
      throws SQLException {
    int n = ops.size();
    // renewals of jobs under a running limit: its lock, then each lease judged as the clock reads
    // then (RunningLimits)
    List<Long> renewed = new ArrayList<>();
    for (LeaseWrite op : ops) {
      if (op.kind() == LeaseWrite.Kind.RENEW) {
        renewed.add(op.lease().jobId());
      }
    }
    boolean limited = !renewed.isEmpty() && limits.slotted(connection, renewed);
    if (limited) {
      limits.share(connection, renewed);
    }
    OwnedLeases.Owned[] owned = this.owned.lock(connection, ops, limited);
    Map<Long, Integer> maxAttempts = maxAttempts(connection, ops, owned);

    Set<Long> settled = new HashSet<>();
    List<Integer> settledOps = new ArrayList<>();
    Set<Long> requeued = new HashSet<>();
    Set<Long> renewing = new TreeSet<>();
    long renewMicros = 0;
    SettledRows.Rows done = new SettledRows.Rows();
    SettledRows.Rows requeue = new SettledRows.Rows();
    for (int i = 0; i < n; i++) {
      LeaseWrite op = ops.get(i);
      Lease lease = op.lease();
      OwnedLeases.Owned job = owned[i];
      if (job == null || settled.contains(lease.jobId())) {
        continue;
      }
      switch (op.kind()) {
        case RENEW -> {
          renewing.add(job.claimId());
          renewMicros = op.micros();
          continue;
        }
        case COMPLETE -> {
          done.add(
              lease, job.queue(), JobState.COMPLETED.dbName(), job.attempt(), op.result(), null, 0);
        }
        case FAIL, FAIL_FINALLY -> {
          if (op.kind() == LeaseWrite.Kind.FAIL_FINALLY
              || job.attempt() >= maxAttempts.get(lease.jobId())) {
            done.add(
                lease, job.queue(), JobState.FAILED.dbName(), job.attempt(), null, op.error(), 0);
          } else {
            requeue.add(lease, job.queue(), "fail", job.attempt(), null, op.error(), op.micros());
            requeued.add(lease.jobId());
          }
        }
        case RELEASE -> {
          requeue.add(lease, job.queue(), "release", job.attempt() - 1, null, job.error(), 0);
          requeued.add(lease.jobId());
        }
      }
      settled.add(lease.jobId());
      settledOps.add(i);
      outcomes[i] = LeaseWrite.Outcome.accepted(lease, false);
    }
    Set<Long> ended = rows.done(connection, done);
    rows.requeue(connection, requeue);
    List<Long> offClaims = new ArrayList<>();
    List<Long> offJobs = new ArrayList<>();
    List<Integer> offBack = new ArrayList<>();
    List<OutboxWrites.Row> written = new ArrayList<>();
    for (int i : settledOps) {
      LeaseWrite op = ops.get(i);
      long jobId = op.lease().jobId();
      boolean givesBack = requeued.contains(jobId);
      if (!givesBack && !ended.contains(jobId)) {
        outcomes[i] = null;
        continue;
      }
      offClaims.add(owned[i].claimId());
      offJobs.add(jobId);
      offBack.add(givesBack ? 1 : 0);
      if (op.kind() == LeaseWrite.Kind.COMPLETE) {
        written.addAll(OutboxWrites.rows(op.lease(), op.messages()));
      }
    }
    rows.messages(connection, written);
    rows.countOff(connection, offClaims, offJobs, offBack);
    if (!renewing.isEmpty()) {
      renew(connection, ops, owned, renewing, renewMicros, outcomes);
    }
    return outcomes;
  }

  /**
   * Extends the leases of the claim rows {@code renewing} by {@code micros}, and gives each renewal
   * of {@code ops} that owned its job its new lease.
   */
  private void renew(
      Connection connection,
      List<LeaseWrite> ops,
      OwnedLeases.Owned[] owned,
      Set<Long> renewing,
      long micros,
      LeaseWrite.Outcome[] outcomes)
      throws SQLException {
    Map<Long, Instant> extended = new HashMap<>();
    try (PreparedStatement s =
            renewSql.prepare(
                connection, Map.of("claims", renewing.toArray(Long[]::new), "micros", micros));
        ResultSet r = renewSql.query(s)) {
      while (r.next()) {
        long expiry = r.getLong(2);
        extended.put(r.getLong(1), LeaseSql.instant(expiry));
      }
    }
    for (int i = 0; i < ops.size(); i++) {
      OwnedLeases.Owned job = owned[i];
      LeaseWrite op = ops.get(i);
      if (op.kind() == LeaseWrite.Kind.RENEW
          && job != null
          && extended.containsKey(job.claimId())) {
        Lease lease = op.lease();
        outcomes[i] =
            new LeaseWrite.Outcome(
                null,
                new Lease(lease.jobId(), lease.owner(), lease.epoch(), extended.get(job.claimId())),
                null);
      }
    }
  }

  /** The maximum attempts of the jobs that owned leases fail (none read when none fails). */
  private Map<Long, Integer> maxAttempts(
      Connection connection, List<LeaseWrite> ops, OwnedLeases.Owned[] owned) {
    List<Long> failing = new ArrayList<>();
    for (int i = 0; i < owned.length; i++) {
      if (owned[i] != null && ops.get(i).kind() == LeaseWrite.Kind.FAIL) {
        failing.add(ops.get(i).lease().jobId());
      }
    }
    if (failing.isEmpty()) {
      return Map.of();
    }
    FencingAppendJob j = FENCING_APPEND_JOB;
    return jdbc.on(connection)
        .select(j.ID, j.MAX_ATTEMPTS)
        .from(j)
        .where(j.ID.in(failing))
        .fetchMap(j.ID, j.MAX_ATTEMPTS);
  }

  private static Query renewQuery(DSLContext dsl, RenderedSql.Parameters p) {
    FencingAppendClaim c = FENCING_APPEND_CLAIM;
    return dsl.update(c)
        .set(c.LEASE_EXPIRES_AT, LeaseSql.nowPlusMicros(p.bigint("micros")))
        .where(c.ID.eq(any(p.bigints("claims"))))
        .returning(c.ID, LeaseSql.micros(c.LEASE_EXPIRES_AT));
  }
}
