package dev.fencing.postgres.internal.append;

import static dev.fencing.postgres.internal.jooq.Tables.FENCING_APPEND_CLAIM;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_APPEND_DONE;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_APPEND_HANDOUT;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_APPEND_JOB;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_APPEND_OPERATED;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_APPEND_REQUEUE;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_APPEND_WINDOW;
import static org.jooq.impl.DSL.any;
import static org.jooq.impl.DSL.coalesce;
import static org.jooq.impl.DSL.count;
import static org.jooq.impl.DSL.currentOffsetDateTime;
import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.inline;
import static org.jooq.impl.DSL.name;
import static org.jooq.impl.DSL.not;
import static org.jooq.impl.DSL.notExists;
import static org.jooq.impl.DSL.row;
import static org.jooq.impl.DSL.select;
import static org.jooq.impl.DSL.selectOne;
import static org.jooq.impl.DSL.table;
import static org.jooq.impl.DSL.val;

import dev.fencing.Epoch;
import dev.fencing.Job;
import dev.fencing.JobState;
import dev.fencing.Lease;
import dev.fencing.postgres.internal.Config;
import dev.fencing.postgres.internal.Generation;
import dev.fencing.postgres.internal.Jdbc;
import dev.fencing.postgres.internal.LeaseSql;
import dev.fencing.postgres.internal.RenderedSql;
import dev.fencing.postgres.internal.jooq.tables.FencingAppendClaim;
import dev.fencing.postgres.internal.jooq.tables.FencingAppendHandout;
import dev.fencing.postgres.internal.jooq.tables.FencingAppendJob;
import dev.fencing.postgres.internal.jooq.tables.FencingAppendOperated;
import dev.fencing.postgres.internal.jooq.tables.FencingAppendRequeue;
import dev.fencing.postgres.internal.jooq.tables.FencingAppendWindow;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Param;
import org.jooq.Query;
import org.jooq.Record;
import org.jooq.Table;
import org.jooq.impl.SQLDataType;
import org.jspecify.annotations.Nullable;

/**
 * The claim of the append-only engine: one transaction per batch, which takes work from three
 * sources and merges them oldest ready first (a fresh job is ready since its enqueue, a given-back
 * or failed job since its {@code requeue} row's time, an expired claim's jobs since its lease ran
 * out), then writes one claim row and one hand-out per job.
 *
 * <ul>
 *   <li><b>Fresh jobs</b> come from the queue's window (see {@code schema-append.sql}), which the
 *       claim locks: claims of one queue take fresh jobs one after the other, and never the same.
 *   <li><b>Requeued jobs</b> are locked and skipped if locked ({@code SKIP LOCKED}), and deleted
 *       when taken.
 *   <li><b>Expired claims</b> are locked the same way and taken over whole: the row is marked not
 *       live (a late write under it finds it so), each of its open jobs is handed out again under a
 *       new epoch, ended {@code failed} if its attempts are used up, or, if the batch is full,
 *       written to {@code requeue} ready since the lease ran out.
 * </ul>
 *
 * <p>A job's epoch is its previous hand-out's plus one (the first: 1), in the failover generation
 * of the server ({@link Generation}), so a job's tokens only go up.
 */
final class AppendClaims {

  /** The enqueueing transaction's id, as the job row keeps it. */
  static final Field<Long> CURRENT_XID =
      field("pg_current_xact_id()::text::bigint", SQLDataType.BIGINT);

  /** A snapshot in which no transaction is visible: the first window starts there. */
  static final String NOTHING_VISIBLE = "3:3:";

  private final Jdbc jdbc;
  private final RenderedSql windowSql;
  private final RenderedSql freshSql;
  private final RenderedSql requeuedSql;
  private final RenderedSql expiredSql;
  private final RenderedSql claimSql;
  private final RenderedSql moveSql;
  private final RenderedSql unqueueSql;

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
  AppendClaims(Jdbc jdbc, Config config) {
    this.jdbc = jdbc;
    DSLContext dsl = jdbc.dsl();
    // the schema passed Validate.identifier; jOOQ quotes it
    this.freshOnlySql =
        "select o_job_id, o_epoch, o_payload, o_lease_micros from "
            + dsl.render(name(config.schema(), "fencing_append_claim_fresh"))
            + "(?, ?, ?, ?, ?, ?, "
            // the server's generation, read in this statement as every claim reads it; on a
            // standby, where reading it fails ("recovery is in progress", not transient), NULL,
            // which the function refuses as read-only (25006), as every other write there is
            + "case when pg_is_in_recovery() then null else "
            + dsl.render(Generation.CURRENT)
            + " end)";
    this.asyncClaims = !config.synchronousReplication();
    RenderedSql.Plan indexed = RenderedSql.Plan.INDEXED;
    RenderedSql.Parameters p = new RenderedSql.Parameters();
    this.windowSql = new RenderedSql(dsl, windowQuery(dsl, p), p, indexed);
    p = new RenderedSql.Parameters();
    this.freshSql = new RenderedSql(dsl, freshQuery(dsl, p), p, indexed);
    p = new RenderedSql.Parameters();
    this.requeuedSql = new RenderedSql(dsl, requeuedQuery(dsl, p), p, indexed);
    p = new RenderedSql.Parameters();
    this.expiredSql = new RenderedSql(dsl, expiredQuery(dsl, p), p, indexed);
    p = new RenderedSql.Parameters();
    this.claimSql = new RenderedSql(dsl, claimQuery(dsl, p), p, indexed);
    p = new RenderedSql.Parameters();
    this.moveSql = new RenderedSql(dsl, moveQuery(dsl, p), p, indexed);
    p = new RenderedSql.Parameters();
    this.unqueueSql = new RenderedSql(dsl, unqueueQuery(dsl, p), p, indexed);
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
              List<Job> fresh = jdbc.run(c -> freshOnly(c, queue, owner, micros, batchSize, token));
              if (fresh != null) {
                return durable(fresh);
              }
              return jdbc.transaction(c -> claim(c, queue, owner, micros, batchSize, token));
            });
    List<Job> sorted = new ArrayList<>(jobs);
    sorted.sort(Comparator.comparingLong(Job::id));
    return sorted;
  }

  /**
   * The claim when only fresh jobs are due: one call of {@code fencing_append_claim_fresh} (in
   * {@code schema-append.sql}), which holds the window's lock for that call alone; or null when
   * requeued or expired work is due, or the queue has no window yet, and {@link #claim} must run.
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

  /** What one candidate for the batch is, and where it came from. */
  private record Item(
      long jobId,
      OffsetDateTime ready,
      long previousEpoch,
      int attemptsUsed,
      String cameFrom,
      @Nullable String lastError,
      String payload,
      int maxAttempts,
      long xid,
      long claimId,
      @Nullable String previousOwner) {}

  private List<Job> claim(
      Connection connection, String queue, String owner, long micros, int n, UUID token)
      throws SQLException {
    // what needs no window first (its rows are locked, skipping those others hold): the window's
    // lock, which every claim of the queue waits for, is then held for fewer round trips
    List<Item> requeued = requeued(connection, queue, n);
    List<Item> expired = new ArrayList<>();
    List<Item> spent = new ArrayList<>();
    List<Long> takenOver = expired(connection, queue, n, expired, spent);
    Window window = lockWindow(connection, queue);
    if (window == null) {
      FencingAppendWindow w = FENCING_APPEND_WINDOW;
      jdbc.on(connection)
          .insertInto(w)
          .set(w.QUEUE, queue)
          .set(w.LO, NOTHING_VISIBLE)
          .set(w.HI, NOTHING_VISIBLE)
          .set(w.AFTER_XID, 0L)
          .set(w.AFTER_ID, 0L)
          .onConflictDoNothing()
          .execute();
      window = lockWindow(connection, queue);
      if (window == null) {
        throw new IllegalStateException("the window of queue " + queue + " vanished");
      }
    }
    List<Item> fresh =
        fresh(connection, queue, window.lo(), window.hi(), window.afterXid(), window.afterId(), n);
    int inWindow = fresh.size();
    String next = null;
    if (inWindow < n) {
      try (Statement s = connection.createStatement();
          ResultSet r = s.executeQuery("select pg_current_snapshot()::text")) {
        r.next();
        next = r.getString(1);
      }
      if (!next.equals(window.hi())) {
        fresh.addAll(fresh(connection, queue, window.hi(), next, 0L, 0L, n - inWindow));
      }
    }

    // oldest ready first; each source keeps its own order (the window's is fixed)
    List<Item> chosen = new ArrayList<>(n);
    int f = 0;
    int q = 0;
    int e = 0;
    while (chosen.size() < n) {
      Item best = null;
      int from = -1;
      if (f < fresh.size()) {
        best = fresh.get(f);
        from = 0;
      }
      if (q < requeued.size() && (best == null || earlier(requeued.get(q), best))) {
        best = requeued.get(q);
        from = 1;
      }
      if (e < expired.size() && (best == null || earlier(expired.get(e), best))) {
        best = expired.get(e);
        from = 2;
      }
      if (best == null) {
        break;
      }
      chosen.add(best);
      switch (from) {
        case 0 -> f++;
        case 1 -> q++;
        default -> e++;
      }
    }

    Move move = move(window, fresh, f, inWindow, n, next);
    if (move != null && chosen.isEmpty()) {
      try (PreparedStatement s = moveSql.prepare(connection, move.values(queue))) {
        moveSql.update(s);
      }
    }
    if (!takenOver.isEmpty()) {
      settleTakenOver(
          jdbc.on(connection), queue, takenOver, spent, expired.subList(e, expired.size()));
    }
    if (q > 0) {
      Long[] unqueued = new Long[q];
      for (int i = 0; i < q; i++) {
        unqueued[i] = requeued.get(i).jobId();
      }
      try (PreparedStatement s = unqueueSql.prepare(connection, Map.of("ids", unqueued))) {
        unqueueSql.update(s);
      }
    }
    if (chosen.isEmpty()) {
      return List.of();
    }
    return handOut(connection, queue, owner, micros, token, chosen, move);
  }

  private static boolean earlier(Item a, Item b) {
    int byTime = a.ready().compareTo(b.ready());
    return byTime < 0 || (byTime == 0 && a.jobId() < b.jobId());
  }

  /** A queue's window: between snapshots {@code lo} and {@code hi}, after a position. */
  private record Window(String lo, String hi, long afterXid, long afterId) {}

  private @Nullable Window lockWindow(Connection connection, String queue) throws SQLException {
    try (PreparedStatement s = windowSql.prepare(connection, Map.of("queue", queue));
        ResultSet r = windowSql.query(s)) {
      return r.next()
          ? new Window(r.getString(1), r.getString(2), r.getLong(3), r.getLong(4))
          : null;
    }
  }

  private static Query windowQuery(DSLContext dsl, RenderedSql.Parameters p) {
    FencingAppendWindow w = FENCING_APPEND_WINDOW;
    return dsl.select(w.LO, w.HI, w.AFTER_XID, w.AFTER_ID)
        .from(w)
        .where(w.QUEUE.eq(p.varchar("queue")))
        .forNoKeyUpdate();
  }

  /**
   * The next {@code limit} jobs of the window between snapshots {@code lo} and {@code hi}, after
   * position {@code (afterXid, afterId)}: committed when {@code hi} was taken, not when {@code lo}
   * was.
   *
   * <p>A position before {@code lo}'s xmin (a window just moved to has none) is raised to it first:
   * the same jobs, but PostgreSQL starts the index range scan at the row comparison, not at the
   * larger {@code xid} bound, so a position {@code (0, 0)} made every such claim read the queue's
   * whole {@code (queue, xid, id)} index, every job kept and every dead entry not yet vacuumed
   * (measured: 4,929 buffers a claim after a million jobs, 4 with the position raised;
   * docs/BENCHMARKS.md, issue 22's storage).
   */
  private List<Item> fresh(
      Connection connection,
      String queue,
      String lo,
      String hi,
      long afterXid,
      long afterId,
      int limit)
      throws SQLException {
    // (xmin, 0) comes before every job of transaction xmin (ids start at 1): nothing skipped
    boolean before = afterXid < xmin(lo);
    long positionXid = before ? xmin(lo) : afterXid;
    long positionId = before ? 0 : afterId;
    List<Item> items = new ArrayList<>();
    try (PreparedStatement s =
            freshSql.prepare(
                connection,
                Map.of(
                    "queue", queue,
                    "lo", lo,
                    "hi", hi,
                    "afterXid", positionXid,
                    "afterId", positionId,
                    "limit", limit));
        ResultSet r = freshSql.query(s)) {
      while (r.next()) {
        items.add(
            new Item(
                r.getLong(1),
                r.getObject(5, OffsetDateTime.class),
                0,
                0,
                "fresh",
                null,
                r.getString(3),
                r.getInt(4),
                r.getLong(2),
                0,
                null));
      }
    }
    return items;
  }

  private static Query freshQuery(DSLContext dsl, RenderedSql.Parameters p) {
    FencingAppendJob j = FENCING_APPEND_JOB;
    Param<String> lo = p.varchar("lo");
    Param<String> hi = p.varchar("hi");
    return dsl.select(j.ID, j.XID, j.PAYLOAD, j.MAX_ATTEMPTS, j.CREATED_AT)
        .from(j)
        .where(j.QUEUE.eq(p.varchar("queue")))
        .and(j.XID.ge(snapshotBound("pg_snapshot_xmin", lo)))
        .and(j.XID.lt(snapshotBound("pg_snapshot_xmax", hi)))
        .and(row(j.XID, j.ID).gt(p.bigint("afterXid"), p.bigint("afterId")))
        .and(visible(j.XID, hi))
        .and(not(visible(j.XID, lo)))
        // failed by an operator before any claim took it
        .andNotExists(
            selectOne()
                .from(FENCING_APPEND_OPERATED)
                .where(FENCING_APPEND_OPERATED.JOB_ID.eq(j.ID)))
        .orderBy(j.XID, j.ID)
        .limit(p.integer("limit"));
  }

  /** The xmin of a snapshot in its text form, {@code xmin:xmax:xip,...}. */
  static long xmin(String snapshot) {
    return Long.parseLong(snapshot.substring(0, snapshot.indexOf(':')));
  }

  /** {@code function} ({@code pg_snapshot_xmin} or {@code _xmax}) of a snapshot, as a bigint. */
  static Field<Long> snapshotBound(String function, Field<String> snapshot) {
    return field(function + "({0}::pg_snapshot)::text::bigint", SQLDataType.BIGINT, snapshot);
  }

  /** Whether transaction {@code xid} is visible in {@code snapshot}: it had committed then. */
  static Condition visible(Field<Long> xid, Field<String> snapshot) {
    return field(
            "pg_visible_in_snapshot({0}::text::xid8, {1}::pg_snapshot)",
            SQLDataType.BOOLEAN, xid, snapshot)
        .isTrue();
  }

  /** Due {@code requeue} rows, locked; those another claim holds are skipped. */
  private List<Item> requeued(Connection connection, String queue, int limit) throws SQLException {
    List<Item> items = new ArrayList<>();
    try (PreparedStatement s =
            requeuedSql.prepare(connection, Map.of("queue", queue, "limit", limit));
        ResultSet r = requeuedSql.query(s)) {
      while (r.next()) {
        items.add(
            new Item(
                r.getLong(1),
                r.getObject(2, OffsetDateTime.class),
                r.getLong(3),
                r.getInt(4),
                r.getString(5),
                r.getString(6),
                r.getString(8),
                r.getInt(9),
                0,
                0,
                r.getString(7)));
      }
    }
    return items;
  }

  private static Query requeuedQuery(DSLContext dsl, RenderedSql.Parameters p) {
    FencingAppendRequeue r = FENCING_APPEND_REQUEUE;
    FencingAppendJob j = FENCING_APPEND_JOB;
    return dsl.select(
            r.JOB_ID,
            r.READY_AT,
            r.EPOCH,
            r.ATTEMPTS,
            r.REASON,
            r.LAST_ERROR,
            r.OWNER,
            j.PAYLOAD,
            j.MAX_ATTEMPTS)
        .from(r)
        .join(j)
        .on(j.ID.eq(r.JOB_ID))
        .where(r.QUEUE.eq(p.varchar("queue")))
        .and(r.READY_AT.le(currentOffsetDateTime()))
        .orderBy(r.READY_AT, r.JOB_ID)
        .limit(p.integer("limit"))
        .forUpdate()
        .of(r)
        .skipLocked();
  }

  /**
   * Locks live claim rows whose lease ran out (skipping those a commit holds) and adds their open
   * jobs to {@code open} (attempts left) or {@code spent} (none left), oldest expiry first.
   *
   * @return the claim rows locked, to be marked taken over
   */
  private List<Long> expired(
      Connection connection, String queue, int limit, List<Item> open, List<Item> spent)
      throws SQLException {
    List<Long> claims = new ArrayList<>();
    try (PreparedStatement s =
            expiredSql.prepare(connection, Map.of("queue", queue, "limit", limit));
        ResultSet r = expiredSql.query(s)) {
      while (r.next()) {
        claims.add(r.getLong(1));
      }
    }
    if (claims.isEmpty()) {
      return claims;
    }
    DSLContext d = jdbc.on(connection);
    // a later statement than the lock: it sees what a commit that held a row wrote
    // plain names: the render mapping would put the user's schema in front of a qualified one
    Field<Long> claimId = field(name("u_claim_id"), Long.class);
    Field<OffsetDateTime> expiredAt = field(name("u_expired_at"), OffsetDateTime.class);
    Field<String> previousOwner = field(name("u_owner"), String.class);
    Field<Long> jobId = field(name("u_job_id"), Long.class);
    Field<Long> epoch = field(name("u_epoch"), Long.class);
    Table<?> u =
        table(
            "(select c.id as u_claim_id, c.lease_expires_at as u_expired_at, c.owner as u_owner,"
                + " x.job_id as u_job_id, x.epoch as u_epoch"
                + " from {0} c cross join lateral unnest(c.job_ids, c.epochs) as x(job_id, epoch)"
                + " where c.id = any({1})) as u",
            FENCING_APPEND_CLAIM, val(claims.toArray(Long[]::new)));
    FencingAppendHandout h = FENCING_APPEND_HANDOUT;
    FencingAppendHandout later = FENCING_APPEND_HANDOUT.as("later");
    FencingAppendJob j = FENCING_APPEND_JOB;
    for (Record row :
        d.select(
                claimId,
                expiredAt,
                previousOwner,
                jobId,
                epoch,
                h.ATTEMPT,
                h.LAST_ERROR,
                j.PAYLOAD,
                j.MAX_ATTEMPTS)
            .from(u)
            .join(h)
            .on(h.JOB_ID.eq(jobId).and(h.EPOCH.eq(epoch)))
            .join(j)
            .on(j.ID.eq(jobId))
            .where(
                notExists(
                    selectOne()
                        .from(FENCING_APPEND_DONE)
                        .where(FENCING_APPEND_DONE.JOB_ID.eq(jobId))))
            .and(
                notExists(
                    selectOne()
                        .from(FENCING_APPEND_REQUEUE)
                        .where(FENCING_APPEND_REQUEUE.JOB_ID.eq(jobId))))
            .and(
                notExists(
                    selectOne()
                        .from(later)
                        .where(later.JOB_ID.eq(jobId))
                        .and(later.EPOCH.gt(epoch))))
            .orderBy(expiredAt, jobId)
            .fetch()) {
      Item item =
          new Item(
              row.get(jobId),
              row.get(expiredAt),
              row.get(epoch),
              row.get(h.ATTEMPT),
              "expired",
              row.get(h.LAST_ERROR),
              row.get(j.PAYLOAD).data(),
              row.get(j.MAX_ATTEMPTS),
              0,
              row.get(claimId),
              row.get(previousOwner));
      (item.attemptsUsed() >= item.maxAttempts() ? spent : open).add(item);
    }
    return claims;
  }

  /** Where the window goes: its snapshots, and the position after the last fresh job taken. */
  private record Move(String lo, String hi, long afterXid, long afterId) {
    Map<String, Object> values(String queue) {
      return Map.of("queue", queue, "lo", lo, "hi", hi, "afterXid", afterXid, "afterId", afterId);
    }
  }

  /**
   * Where the window moves past the {@code taken} first fresh jobs, or null if it stays. The first
   * {@code inWindow} of {@code fresh} are of the current window; the rest of the next one (between
   * its {@code hi} and {@code next}), read because the current one had fewer than a batch: the
   * window moves on to the next one once everything of the current one is taken.
   */
  private static @Nullable Move move(
      Window window, List<Item> fresh, int taken, int inWindow, int n, @Nullable String next) {
    if (next != null && inWindow < n && taken >= inWindow && !next.equals(window.hi())) {
      Item last = taken > inWindow ? fresh.get(taken - 1) : null;
      return new Move(
          window.hi(), next, last == null ? 0L : last.xid(), last == null ? 0L : last.jobId());
    }
    if (taken > 0) {
      Item last = fresh.get(Math.min(taken, inWindow) - 1);
      return new Move(window.lo(), window.hi(), last.xid(), last.jobId());
    }
    return null;
  }

  private static Query moveQuery(DSLContext dsl, RenderedSql.Parameters p) {
    FencingAppendWindow w = FENCING_APPEND_WINDOW;
    return dsl.update(w)
        .set(w.LO, p.varchar("lo"))
        .set(w.HI, p.varchar("hi"))
        .set(w.AFTER_XID, p.bigint("afterXid"))
        .set(w.AFTER_ID, p.bigint("afterId"))
        .where(w.QUEUE.eq(p.varchar("queue")));
  }

  private static Query unqueueQuery(DSLContext dsl, RenderedSql.Parameters p) {
    FencingAppendRequeue r = FENCING_APPEND_REQUEUE;
    return dsl.deleteFrom(r).where(r.JOB_ID.eq(any(p.bigints("ids"))));
  }

  private static Query expiredQuery(DSLContext dsl, RenderedSql.Parameters p) {
    FencingAppendClaim c = FENCING_APPEND_CLAIM;
    return dsl.select(c.ID)
        .from(c)
        .where(c.QUEUE.eq(p.varchar("queue")))
        .and(c.LIVE)
        .and(c.LEASE_EXPIRES_AT.le(currentOffsetDateTime()))
        .orderBy(c.LEASE_EXPIRES_AT)
        .limit(p.integer("limit"))
        .forNoKeyUpdate()
        .skipLocked();
  }

  /**
   * Ends the claim rows taken over: their spent jobs fail, their open jobs that did not fit in the
   * batch wait in {@code requeue}, ready since the lease ran out.
   */
  private static void settleTakenOver(
      DSLContext d, String queue, List<Long> claims, List<Item> spent, List<Item> leftOver) {
    if (claims.isEmpty()) {
      return;
    }
    FencingAppendClaim c = FENCING_APPEND_CLAIM;
    d.update(c).set(c.LIVE, false).set(c.OPEN, 0).where(c.ID.in(claims)).execute();
    for (Item item : spent) {
      d.insertInto(FENCING_APPEND_DONE)
          .set(FENCING_APPEND_DONE.JOB_ID, item.jobId())
          .set(FENCING_APPEND_DONE.QUEUE, queue)
          .set(FENCING_APPEND_DONE.EPOCH, item.previousEpoch())
          .set(FENCING_APPEND_DONE.STATUS, inline(JobState.FAILED.dbName()))
          .set(FENCING_APPEND_DONE.OWNER, item.previousOwner())
          .set(FENCING_APPEND_DONE.ATTEMPTS, item.attemptsUsed())
          .set(FENCING_APPEND_DONE.LAST_ERROR, leaseRanOut(item))
          .execute();
    }
    for (Item item : leftOver) {
      FencingAppendRequeue r = FENCING_APPEND_REQUEUE;
      d.insertInto(r)
          .set(r.JOB_ID, item.jobId())
          .set(r.QUEUE, queue)
          .set(r.READY_AT, item.ready())
          .set(r.EPOCH, item.previousEpoch())
          .set(r.OWNER, item.previousOwner())
          .set(r.ATTEMPTS, item.attemptsUsed())
          .set(r.REASON, inline("expired"))
          .set(r.LAST_ERROR, item.lastError())
          .execute();
    }
  }

  /**
   * The job's last error as the other engine words it ({@link LeaseSql#leaseRanOut}): its earlier
   * expiries are its hand-outs after an expiry since an operator last requeued or failed it, as
   * {@link AppendAdmin} counts them.
   */
  private static Field<String> leaseRanOut(Item item) {
    FencingAppendHandout h = FENCING_APPEND_HANDOUT;
    FencingAppendOperated o = FENCING_APPEND_OPERATED;
    Field<Integer> earlier =
        field(
            select(count())
                .from(h)
                .where(h.JOB_ID.eq(item.jobId()))
                .and(h.CAME_FROM.eq(inline("expired")))
                .and(
                    h.EPOCH.gt(
                        coalesce(
                            field(select(o.EPOCH).from(o).where(o.JOB_ID.eq(item.jobId()))),
                            inline(-1L)))));
    return LeaseSql.leaseRanOut(earlier, inline(item.attemptsUsed()), inline(item.maxAttempts()));
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
      List<Item> chosen,
      @Nullable Move move)
      throws SQLException {
    int m = chosen.size();
    Long[] ids = new Long[m];
    Long[] previous = new Long[m];
    Integer[] attempts = new Integer[m];
    String[] cameFrom = new String[m];
    String[] errors = new String[m];
    for (int i = 0; i < m; i++) {
      Item item = chosen.get(i);
      ids[i] = item.jobId();
      previous[i] = item.previousEpoch();
      attempts[i] = item.attemptsUsed() + 1;
      cameFrom[i] = item.cameFrom();
      errors[i] = item.lastError();
    }
    Map<String, Object> values =
        new HashMap<>(move == null ? new Move("", "", 0, 0).values(queue) : move.values(queue));
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
      Item item = chosen.get(i);
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
                .fetch(
                    r ->
                        new Job(
                            new Lease(
                                r.value1(), owner, Epoch.of(r.value3()), r.value5().toInstant()),
                            queue,
                            r.value2().data(),
                            r.value4())));
  }
}
