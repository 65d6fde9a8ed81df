package dev.fencing.postgres.internal.append;

import static dev.fencing.postgres.internal.jooq.Tables.FENCING_APPEND_CLAIM;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_APPEND_HANDOUT;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_APPEND_JOB;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_APPEND_WINDOW;
import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.name;

import dev.fencing.Epoch;
import dev.fencing.Job;
import dev.fencing.Lease;
import dev.fencing.postgres.internal.Config;
import dev.fencing.postgres.internal.EngineStore;
import dev.fencing.postgres.internal.Generation;
import dev.fencing.postgres.internal.Jdbc;
import dev.fencing.postgres.internal.LeaseSql;
import dev.fencing.postgres.internal.RenderedSql;
import dev.fencing.postgres.internal.RunningLimits;
import dev.fencing.postgres.internal.SlotTests;
import dev.fencing.postgres.internal.jooq.tables.FencingAppendClaim;
import dev.fencing.postgres.internal.jooq.tables.FencingAppendHandout;
import dev.fencing.postgres.internal.jooq.tables.FencingAppendJob;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Param;
import org.jooq.Query;
import org.jspecify.annotations.Nullable;

/**
 * The claim of the append-only engine: one transaction per batch, which takes work from four
 * sources and merges them by priority, then oldest ready first, then by id (a fresh job is ready
 * since its enqueue, a given-back or failed job since its {@code requeue} row's time, an expired
 * claim's jobs since its lease ran out, all at priority 0; a parked job, {@link Parked}, at its
 * priority since its parked row's time), then writes one claim row and one hand-out per job. When
 * only fresh jobs are due, the whole claim is one call of a PL/pgSQL function instead.
 *
 * <p>Owns the batch: the one-call claim, the merge, the claim row and hand-outs it writes, and the
 * retry after a lost acknowledgement. The sources are {@link AppendWindow} (fresh jobs, under the
 * queue's window lock), {@link Reclaims} (requeued jobs and expired claims, {@code SKIP LOCKED})
 * and {@link Parked} (jobs with a priority, {@code SKIP LOCKED}).
 *
 * <p>A job's epoch is its previous hand-out's plus one (the first: 1), in the failover generation
 * of the server ({@link Generation}), so a job's tokens only go up.
 */
final class AppendClaims {

  /**
   * Whether the lease of the running-limit slot {@code s} is valid at {@code clock_timestamp()}, as
   * {@link OwnedLeases} tests a lease without its owner: the hand-out's claim row is live and its
   * lease has not run out, the job was not given back, and it has no end.
   */
  private static final String SLOT_VALID =
      "exists (select 1 from %1$s h join %2$s c on c.id = h.claim_id"
          + " where h.job_id = s.job_id and h.epoch = s.epoch and c.live"
          + " and c.lease_expires_at > clock_timestamp() and not (s.job_id = any(c.given_back)))"
          + " and not exists (select 1 from %3$s d where d.job_id = s.job_id)";

  /**
   * A group's slot holds until its job ends or is given back (parked again), whatever its lease: an
   * expired job of a group keeps its place.
   */
  private static final String UNDER_WAY =
      "not exists (select 1 from %1$s d where d.job_id = s.job_id)"
          + " and not exists (select 1 from %2$s k where k.job_id = s.job_id)";

  private final Jdbc jdbc;
  private final RunningLimits limits;
  private final SlotTests slotTests;
  private final AppendWindow window;
  private final Reclaims reclaims;
  private final Parked parked;
  private final RenderedSql claimSql;

  /**
   * The function's answer when the claim must merge requeued or expired work (or make a window).
   */
  private static final long FULL_CLAIM = -1;

  private final String freshOnlySql;

  /**
   * Whether a claim of fresh jobs commits without waiting for the WAL flush, and is made durable by
   * {@link Jdbc#flushEarlierCommits} before its jobs are handed out. Not in synchronous mode, whose
   * transactions force a synchronous commit of their own.
   */
  private final boolean asyncClaims;

  @Inject
  AppendClaims(
      Jdbc jdbc,
      Config config,
      RunningLimits limits,
      AppendWindow window,
      Reclaims reclaims,
      Parked parked) {
    this.jdbc = jdbc;
    this.limits = limits;
    String done = limits.table("fencing_append_done");
    this.slotTests =
        new SlotTests(
            SLOT_VALID.formatted(
                limits.table("fencing_append_handout"), limits.table("fencing_append_claim"), done),
            UNDER_WAY.formatted(done, limits.table("fencing_parked")),
            "select u.job_id, u.epoch from "
                + limits.table("fencing_append_claim")
                + " c, unnest(c.job_ids, c.epochs) as u(job_id, epoch) where c.queue = ? and c.live"
                + " and not (u.job_id = any(c.given_back)) and not exists (select 1 from "
                + done
                + " d where d.job_id = u.job_id)");
    this.window = window;
    this.reclaims = reclaims;
    this.parked = parked;
    DSLContext dsl = jdbc.dsl();
    // the schema passed Validate.identifier; jOOQ quotes it
    this.freshOnlySql =
        "select o_job_id, o_epoch, o_payload, o_lease_micros from "
            + dsl.render(name(config.schema(), "fencing_append_claim_fresh_v2"))
            + "(?, ?, ?, ?, ?, ?, "
            // the server's generation, read in this statement as every claim reads it; on a
            // standby, where reading it fails ("recovery is in progress", not transient), NULL,
            // which the function refuses as read-only (25006), as every other write there is
            + "case when pg_is_in_recovery() then null else "
            + dsl.render(Generation.CURRENT)
            + " end)";
    this.asyncClaims = !config.synchronousReplication();
    this.claimSql = RenderedSql.of(dsl, RenderedSql.Plan.INDEXED, AppendClaims::claimQuery);
  }

  /** The engine's tests of a limit's slots. */
  SlotTests slotTests() {
    return slotTests;
  }

  List<Job> claimBatch(String queue, String owner, Duration leaseLength, int batchSize) {
    UUID token = UUID.randomUUID();
    AtomicBoolean retry = new AtomicBoolean();
    List<Job> jobs =
        jdbc.guarded(
            () -> {
              if (retry.getAndSet(true)) {
                List<Job> taken = takenBy(queue, owner, token);
                if (!taken.isEmpty()) {
                  // perhaps an asynchronous claim whose durability was not yet known
                  return durable(taken);
                }
              }
              long micros = leaseLength.toNanos() / 1_000;
              // the fresh claim's function answers "full claim" for a queue with controls (a
              // limited queue's claims all count their slots) or with parked jobs due
              List<Job> fresh = jdbc.run(c -> freshOnly(c, queue, owner, micros, batchSize, token));
              if (fresh != null) {
                return durable(fresh);
              }
              return limits.claim(
                  queue,
                  slotTests,
                  batchSize,
                  (c, n, startable, aging) ->
                      claim(c, queue, owner, micros, n, token, startable, aging));
            });
    List<Job> sorted = new ArrayList<>(jobs);
    sorted.sort(Comparator.comparingLong(Job::id));
    return sorted;
  }

  /**
   * The claim when only fresh jobs are due: one call of {@code fencing_append_claim_fresh_v2} (in
   * {@code V2__queue_controls.sql}; V1's {@code fencing_append_claim_fresh} behind a probe of
   * {@code fencing_parked}), which holds the window's lock for that call alone; or null when
   * requeued, parked or expired work is due, the queue has controls ({@code fencing_queue_limit}),
   * or it has no window yet, and {@link #claim} must run.
   */
  private @Nullable List<Job> freshOnly(
      Connection connection, String queue, String owner, long micros, int n, UUID token)
      throws SQLException {
    try (PreparedStatement s = connection.prepareStatement(freshOnlySql)) {
      s.setString(1, queue);
      s.setString(2, owner);
      s.setLong(3, micros);
      s.setInt(4, n);
      s.setObject(5, token);
      s.setBoolean(6, asyncClaims);
      List<Job> jobs = new ArrayList<>(n);
      try (ResultSet r = s.executeQuery()) {
        while (r.next()) {
          long id = r.getLong(1);
          if (id == FULL_CLAIM) {
            return null;
          }
          long expiry = r.getLong(4);
          Lease lease = new Lease(id, owner, Epoch.of(r.getLong(2)), LeaseSql.instant(expiry));
          jobs.add(new Job(lease, queue, r.getString(3), 1));
        }
      }
      return jobs;
    }
  }

  /**
   * {@code jobs}, once the claim that took them is durable: a claim of fresh jobs committed without
   * waiting for the WAL flush, and lost in a crash, would be made again, the same jobs under the
   * same epochs.
   */
  private List<Job> durable(List<Job> jobs) {
    if (asyncClaims && !jobs.isEmpty()) {
      jdbc.flushEarlierCommits();
    }
    return jobs;
  }

  private List<Job> claim(
      Connection connection,
      String queue,
      String owner,
      long micros,
      int n,
      UUID token,
      Long @Nullable [] startable,
      long agingMicros)
      throws SQLException {
    // what needs no window first (its rows are locked, skipping those others hold): the window's
    // lock, which every claim of the queue waits for, is then held for fewer round trips
    List<Candidate> requeued = reclaims.requeued(connection, queue, n);
    List<Candidate> ranked = parked.due(connection, queue, n, startable, agingMicros);
    List<Candidate> expired = new ArrayList<>();
    List<Candidate> spent = new ArrayList<>();
    List<Long> takenOver = reclaims.expired(connection, queue, n, expired, spent);
    AppendWindow.Fresh read = window.read(connection, queue, n);
    List<Candidate> fresh = read.jobs();

    // by priority (all but parked jobs at 0), then oldest ready first; each source keeps its own
    // order (the window's is fixed)
    List<Candidate> chosen = new ArrayList<>(n);
    int f = 0;
    int q = 0;
    int e = 0;
    int k = 0;
    while (chosen.size() < n) {
      Candidate best = null;
      int from = -1;
      if (f < fresh.size()) {
        best = fresh.get(f);
        from = 0;
      }
      if (q < requeued.size() && (best == null || requeued.get(q).earlier(best, agingMicros))) {
        best = requeued.get(q);
        from = 1;
      }
      if (e < expired.size() && (best == null || expired.get(e).earlier(best, agingMicros))) {
        best = expired.get(e);
        from = 2;
      }
      if (k < ranked.size() && (best == null || ranked.get(k).earlier(best, agingMicros))) {
        best = ranked.get(k);
        from = 3;
      }
      if (best == null) {
        break;
      }
      chosen.add(best);
      switch (from) {
        case 0 -> f++;
        case 1 -> q++;
        case 2 -> e++;
        default -> k++;
      }
    }

    AppendWindow.Move move = read.move(f, n);
    if (move != null && chosen.isEmpty()) {
      window.move(connection, queue, move);
    }
    if (!takenOver.isEmpty()) {
      Reclaims.settleTakenOver(
          jdbc.on(connection), queue, takenOver, spent, expired.subList(e, expired.size()));
    }
    reclaims.unqueue(connection, requeued, q);
    parked.unpark(connection, ranked, k);
    if (chosen.isEmpty()) {
      return List.of();
    }
    return handOut(connection, queue, owner, micros, token, chosen, move);
  }

  /**
   * Writes the claim row, the hand-outs and the window's move in one statement (the window's lock
   * is held until the commit, so every round trip saved here is one less that other claims of the
   * queue wait for), and returns the jobs with their leases.
   */
  private List<Job> handOut(
      Connection connection,
      String queue,
      String owner,
      long micros,
      UUID token,
      List<Candidate> chosen,
      AppendWindow.@Nullable Move move)
      throws SQLException {
    int m = chosen.size();
    Long[] ids = new Long[m];
    Long[] previous = new Long[m];
    Integer[] attempts = new Integer[m];
    String[] cameFrom = new String[m];
    String[] errors = new String[m];
    for (int i = 0; i < m; i++) {
      Candidate item = chosen.get(i);
      ids[i] = item.jobId();
      previous[i] = item.previousEpoch();
      attempts[i] = item.attemptsUsed() + 1;
      cameFrom[i] = item.cameFrom();
      errors[i] = item.lastError();
    }
    Map<String, Object> values =
        new HashMap<>((move == null ? AppendWindow.Move.NONE : move).values(queue));
    values.put("move", move == null ? 0 : 1);
    values.put("owner", owner);
    values.put("micros", micros);
    values.put("ids", ids);
    values.put("previous", previous);
    values.put("open", m);
    values.put("token", token);
    values.put("attempts", attempts);
    values.put("cameFrom", cameFrom);
    values.put("errors", errors);
    Long[] given;
    Instant expiresAt;
    try (PreparedStatement s = claimSql.prepare(connection, values);
        ResultSet r = claimSql.query(s)) {
      r.next();
      given = (Long[]) r.getArray(1).getArray();
      long expiry = r.getLong(2);
      expiresAt = LeaseSql.instant(expiry);
    }
    List<Job> jobs = new ArrayList<>(m);
    for (int i = 0; i < m; i++) {
      Candidate item = chosen.get(i);
      jobs.add(
          new Job(
              new Lease(item.jobId(), owner, Epoch.of(given[i]), expiresAt),
              queue,
              item.payload(),
              attempts[i]));
    }
    return jobs;
  }

  /**
   * The claim row (each job's epoch its previous one's successor in the server's generation, {@link
   * Generation#next}; the first of the generation for a fresh job, previous 0), its hand-outs, and
   * the window's move when {@code move} is 1: one statement of three writes.
   */
  private static Query claimQuery(DSLContext dsl, RenderedSql.Parameters p) {
    // plain names: the render mapping would put the user's schema in front of a qualified one
    Field<Long> prev = field(name("prev"), Long.class);
    Param<String> queue = p.varchar("queue");
    Param<Long[]> ids = p.bigints("ids");
    return dsl.resultQuery(
        "with c as ("
            + "insert into {0} (queue, owner, lease_expires_at, job_ids, epochs, open, claim_token)"
            + " values ({1}, {2}, {3}, {4},"
            + " array(select {5} from unnest({6}) with ordinality as p(prev, i) order by p.i),"
            + " {7}, {8}) returning id, epochs, lease_expires_at),"
            + " h as (insert into {9} (job_id, epoch, claim_id, attempt, came_from, last_error)"
            + " select v.v_id, c.epochs[v.v_i::int], c.id, v.v_attempt, v.v_from, v.v_error"
            + " from c, unnest({4}, {10}, {11}, {12}) with ordinality"
            + " as v(v_id, v_attempt, v_from, v_error, v_i)),"
            + " w as (update {13} set lo = {14}, hi = {15}, after_xid = {16}, after_id = {17}"
            + " where queue = {1} and {18} = 1)"
            + " select c.epochs, (extract(epoch from c.lease_expires_at) * 1000000)::bigint from c",
        FENCING_APPEND_CLAIM,
        queue,
        p.varchar("owner"),
        LeaseSql.nowPlusMicros(p.bigint("micros")),
        ids,
        Generation.next(prev),
        p.bigints("previous"),
        p.integer("open"),
        p.uuid("token"),
        FENCING_APPEND_HANDOUT,
        p.integers("attempts"),
        p.varchars("cameFrom"),
        p.varchars("errors"),
        FENCING_APPEND_WINDOW,
        p.varchar("lo"),
        p.varchar("hi"),
        p.bigint("afterXid"),
        p.bigint("afterId"),
        p.integer("move"));
  }

  /** The jobs an earlier try of this very call claimed, if it landed. */
  private List<Job> takenBy(String queue, String owner, UUID token) {
    FencingAppendClaim c = FENCING_APPEND_CLAIM;
    FencingAppendHandout h = FENCING_APPEND_HANDOUT;
    FencingAppendJob j = FENCING_APPEND_JOB;
    return jdbc.run(
        connection ->
            jdbc.on(connection)
                .select(j.ID, j.PAYLOAD, h.EPOCH, h.ATTEMPT, c.LEASE_EXPIRES_AT)
                .from(c)
                .join(h)
                .on(h.CLAIM_ID.eq(c.ID))
                .join(j)
                .on(j.ID.eq(h.JOB_ID))
                .where(c.CLAIM_TOKEN.eq(token))
                .and(c.OWNER.eq(owner))
                .and(c.QUEUE.eq(queue))
                .and(c.LIVE)
                .fetch(r -> EngineStore.Claimer.taken(queue, owner, r)));
  }
}
