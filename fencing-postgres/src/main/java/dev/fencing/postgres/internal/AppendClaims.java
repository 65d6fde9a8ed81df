package dev.fencing.postgres.internal;

import static dev.fencing.postgres.internal.jooq.Tables.FENCING_APPEND_CLAIM;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_APPEND_DONE;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_APPEND_HANDOUT;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_APPEND_JOB;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_APPEND_REQUEUE;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_APPEND_WINDOW;
import static org.jooq.impl.DSL.currentOffsetDateTime;
import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.inline;
import static org.jooq.impl.DSL.name;
import static org.jooq.impl.DSL.not;
import static org.jooq.impl.DSL.notExists;
import static org.jooq.impl.DSL.row;
import static org.jooq.impl.DSL.selectOne;
import static org.jooq.impl.DSL.table;
import static org.jooq.impl.DSL.val;

import dev.fencing.Epoch;
import dev.fencing.Job;
import dev.fencing.JobState;
import dev.fencing.Lease;
import dev.fencing.postgres.internal.jooq.tables.FencingAppendClaim;
import dev.fencing.postgres.internal.jooq.tables.FencingAppendHandout;
import dev.fencing.postgres.internal.jooq.tables.FencingAppendJob;
import dev.fencing.postgres.internal.jooq.tables.FencingAppendRequeue;
import dev.fencing.postgres.internal.jooq.tables.FencingAppendWindow;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Record;
import org.jooq.Record4;
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

  /** A snapshot in which no transaction is visible: the first window starts there. */
  static final String NOTHING_VISIBLE = "3:3:";

  private final Jdbc jdbc;

  @Inject
  AppendClaims(Jdbc jdbc) {
    this.jdbc = jdbc;
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
                  return taken;
                }
              }
              return jdbc.transaction(
                  c -> claim(c, queue, owner, leaseLength.toNanos() / 1_000, batchSize, token));
            });
    List<Job> sorted = new ArrayList<>(jobs);
    sorted.sort(Comparator.comparingLong(Job::id));
    return sorted;
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
      Connection connection, String queue, String owner, long micros, int n, UUID token) {
    DSLContext d = jdbc.on(connection);
    FencingAppendWindow w = FENCING_APPEND_WINDOW;
    Record4<String, String, Long, Long> window = lockWindow(d, queue);
    if (window == null) {
      d.insertInto(w)
          .set(w.QUEUE, queue)
          .set(w.LO, NOTHING_VISIBLE)
          .set(w.HI, NOTHING_VISIBLE)
          .set(w.AFTER_XID, 0L)
          .set(w.AFTER_ID, 0L)
          .onConflictDoNothing()
          .execute();
      window = lockWindow(d, queue);
      if (window == null) {
        throw new IllegalStateException("the window of queue " + queue + " vanished");
      }
    }
    String lo = window.value1();
    String hi = window.value2();
    List<Item> fresh = fresh(d, queue, lo, hi, window.value3(), window.value4(), n);
    int inWindow = fresh.size();
    String next = null;
    if (inWindow < n) {
      next = d.fetchValue(field("pg_current_snapshot()::text", String.class));
      fresh.addAll(fresh(d, queue, hi, next, 0L, 0L, n - inWindow));
    }
    List<Item> requeued = requeued(d, queue, n);
    List<Item> expired = new ArrayList<>();
    List<Item> spent = new ArrayList<>();
    List<Long> takenOver = expired(d, queue, n, expired, spent);

    // oldest ready first; each source keeps its own order (the window's is fixed)
    List<Item> chosen = new ArrayList<>(n);
    List<Item> leftOver = new ArrayList<>();
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
    leftOver.addAll(expired.subList(e, expired.size()));

    writeWindow(d, queue, fresh, f, inWindow, n, hi, next);
    settleTakenOver(d, queue, takenOver, spent, leftOver);
    List<Long> requeuedTaken = new ArrayList<>();
    for (Item item : chosen) {
      if (!item.cameFrom().equals("fresh") && item.claimId() == 0) {
        requeuedTaken.add(item.jobId());
      }
    }
    if (!requeuedTaken.isEmpty()) {
      FencingAppendRequeue r = FENCING_APPEND_REQUEUE;
      d.deleteFrom(r).where(r.JOB_ID.in(requeuedTaken)).execute();
    }
    if (chosen.isEmpty()) {
      return List.of();
    }
    return handOut(d, queue, owner, micros, token, chosen);
  }

  private static boolean earlier(Item a, Item b) {
    int byTime = a.ready().compareTo(b.ready());
    return byTime < 0 || (byTime == 0 && a.jobId() < b.jobId());
  }

  private static @Nullable Record4<String, String, Long, Long> lockWindow(
      DSLContext d, String queue) {
    FencingAppendWindow w = FENCING_APPEND_WINDOW;
    return d.select(w.LO, w.HI, w.AFTER_XID, w.AFTER_ID)
        .from(w)
        .where(w.QUEUE.eq(queue))
        .forNoKeyUpdate()
        .fetchOne();
  }

  /**
   * The next {@code limit} jobs of the window between snapshots {@code lo} and {@code hi}, after
   * position {@code (afterXid, afterId)}: committed when {@code hi} was taken, not when {@code lo}
   * was.
   */
  private static List<Item> fresh(
      DSLContext d, String queue, String lo, String hi, long afterXid, long afterId, int limit) {
    FencingAppendJob j = FENCING_APPEND_JOB;
    List<Item> items = new ArrayList<>();
    for (Record row :
        d.select(j.ID, j.XID, j.PAYLOAD, j.MAX_ATTEMPTS, j.CREATED_AT)
            .from(j)
            .where(j.QUEUE.eq(queue))
            .and(j.XID.ge(snapshotBound("pg_snapshot_xmin", lo)))
            .and(j.XID.lt(snapshotBound("pg_snapshot_xmax", hi)))
            .and(row(j.XID, j.ID).gt(afterXid, afterId))
            .and(visible(j.XID, hi))
            .and(not(visible(j.XID, lo)))
            .orderBy(j.XID, j.ID)
            .limit(limit)
            .fetch()) {
      items.add(
          new Item(
              row.get(j.ID),
              row.get(j.CREATED_AT),
              0,
              0,
              "fresh",
              null,
              row.get(j.PAYLOAD).data(),
              row.get(j.MAX_ATTEMPTS),
              row.get(j.XID),
              0,
              null));
    }
    return items;
  }

  private static Field<Long> snapshotBound(String function, String snapshot) {
    return field(function + "({0}::pg_snapshot)::text::bigint", SQLDataType.BIGINT, val(snapshot));
  }

  private static Condition visible(Field<Long> xid, String snapshot) {
    return field(
            "pg_visible_in_snapshot({0}::text::xid8, {1}::pg_snapshot)",
            SQLDataType.BOOLEAN, xid, val(snapshot))
        .isTrue();
  }

  /** Due {@code requeue} rows, locked; those another claim holds are skipped. */
  private static List<Item> requeued(DSLContext d, String queue, int limit) {
    FencingAppendRequeue r = FENCING_APPEND_REQUEUE;
    FencingAppendJob j = FENCING_APPEND_JOB;
    List<Item> items = new ArrayList<>();
    for (Record row :
        d.select(
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
            .where(r.QUEUE.eq(queue))
            .and(r.READY_AT.le(currentOffsetDateTime()))
            .orderBy(r.READY_AT, r.JOB_ID)
            .limit(limit)
            .forUpdate()
            .of(r)
            .skipLocked()
            .fetch()) {
      items.add(
          new Item(
              row.get(r.JOB_ID),
              row.get(r.READY_AT),
              row.get(r.EPOCH),
              row.get(r.ATTEMPTS),
              row.get(r.REASON),
              row.get(r.LAST_ERROR),
              row.get(j.PAYLOAD).data(),
              row.get(j.MAX_ATTEMPTS),
              0,
              0,
              row.get(r.OWNER)));
    }
    return items;
  }

  /**
   * Locks live claim rows whose lease ran out (skipping those a commit holds) and adds their open
   * jobs to {@code open} (attempts left) or {@code spent} (none left), oldest expiry first.
   *
   * @return the claim rows locked, to be marked taken over
   */
  private static List<Long> expired(
      DSLContext d, String queue, int limit, List<Item> open, List<Item> spent) {
    FencingAppendClaim c = FENCING_APPEND_CLAIM;
    List<Long> claims =
        d.select(c.ID)
            .from(c)
            .where(c.QUEUE.eq(queue))
            .and(c.LIVE)
            .and(c.LEASE_EXPIRES_AT.le(currentOffsetDateTime()))
            .orderBy(c.LEASE_EXPIRES_AT)
            .limit(limit)
            .forNoKeyUpdate()
            .skipLocked()
            .fetch(c.ID);
    if (claims.isEmpty()) {
      return claims;
    }
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

  /**
   * Moves the window past the {@code taken} first fresh jobs. The first {@code inWindow} of {@code
   * fresh} are of the current window; the rest of the next one (between {@code hi} and {@code
   * next}), fetched because the current one had fewer than a batch: the window moves on to the next
   * one once everything of the current one is taken.
   */
  private static void writeWindow(
      DSLContext d,
      String queue,
      List<Item> fresh,
      int taken,
      int inWindow,
      int n,
      String hi,
      @Nullable String next) {
    FencingAppendWindow w = FENCING_APPEND_WINDOW;
    boolean moveOn = next != null && inWindow < n && taken >= inWindow && !next.equals(hi);
    if (moveOn) {
      Item last = taken > inWindow ? fresh.get(taken - 1) : null;
      d.update(w)
          .set(w.LO, hi)
          .set(w.HI, next)
          .set(w.AFTER_XID, last == null ? 0L : last.xid())
          .set(w.AFTER_ID, last == null ? 0L : last.jobId())
          .where(w.QUEUE.eq(queue))
          .execute();
    } else if (taken > 0) {
      Item last = fresh.get(Math.min(taken, inWindow) - 1);
      d.update(w)
          .set(w.AFTER_XID, last.xid())
          .set(w.AFTER_ID, last.jobId())
          .where(w.QUEUE.eq(queue))
          .execute();
    }
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
          .set(
              FENCING_APPEND_DONE.LAST_ERROR,
              "lease ran out; "
                  + item.attemptsUsed()
                  + " of "
                  + item.maxAttempts()
                  + " attempts used")
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

  /** Writes the claim row and the hand-outs, and returns the jobs with their leases. */
  private static List<Job> handOut(
      DSLContext d, String queue, String owner, long micros, UUID token, List<Item> chosen) {
    int m = chosen.size();
    Long[] ids = new Long[m];
    Long[] previous = new Long[m];
    for (int i = 0; i < m; i++) {
      ids[i] = chosen.get(i).jobId();
      previous[i] = chosen.get(i).previousEpoch();
    }
    Field<Long> prev = field(name("prev"), Long.class);
    Field<Long[]> epochs =
        field(
            "array(select {0} from unnest({1}) with ordinality as p(prev, i) order by p.i)",
            SQLDataType.BIGINT.array(), Generation.next(prev), val(previous));
    FencingAppendClaim c = FENCING_APPEND_CLAIM;
    Record row =
        d.insertInto(c)
            .set(c.QUEUE, queue)
            .set(c.OWNER, owner)
            .set(c.LEASE_EXPIRES_AT, LeaseSql.nowPlusMicros(val(micros)))
            .set(c.JOB_IDS, ids)
            .set(c.EPOCHS, epochs)
            .set(c.OPEN, m)
            .set(c.CLAIM_TOKEN, token)
            .returning(c.ID, c.EPOCHS, c.LEASE_EXPIRES_AT)
            .fetchOne();
    long claimId = row.get(c.ID);
    Long[] given = row.get(c.EPOCHS);
    Instant expiresAt = row.get(c.LEASE_EXPIRES_AT).toInstant();
    FencingAppendHandout h = FENCING_APPEND_HANDOUT;
    var insert =
        d.insertInto(h, h.JOB_ID, h.EPOCH, h.CLAIM_ID, h.ATTEMPT, h.CAME_FROM, h.LAST_ERROR);
    List<Job> jobs = new ArrayList<>(m);
    for (int i = 0; i < m; i++) {
      Item item = chosen.get(i);
      int attempt = item.attemptsUsed() + 1;
      insert =
          insert.values(
              item.jobId(), given[i], claimId, attempt, item.cameFrom(), item.lastError());
      jobs.add(
          new Job(
              new Lease(item.jobId(), owner, Epoch.of(given[i]), expiresAt),
              queue,
              item.payload(),
              attempt));
    }
    insert.execute();
    return jobs;
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
