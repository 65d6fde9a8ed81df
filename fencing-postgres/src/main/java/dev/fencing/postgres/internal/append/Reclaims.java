package dev.fencing.postgres.internal.append;

import static dev.fencing.postgres.internal.jooq.Tables.FENCING_APPEND_CLAIM;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_APPEND_DONE;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_APPEND_HANDOUT;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_APPEND_JOB;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_APPEND_OPERATED;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_APPEND_REQUEUE;
import static org.jooq.impl.DSL.any;
import static org.jooq.impl.DSL.coalesce;
import static org.jooq.impl.DSL.count;
import static org.jooq.impl.DSL.currentOffsetDateTime;
import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.inline;
import static org.jooq.impl.DSL.name;
import static org.jooq.impl.DSL.notExists;
import static org.jooq.impl.DSL.select;
import static org.jooq.impl.DSL.selectOne;
import static org.jooq.impl.DSL.table;
import static org.jooq.impl.DSL.val;

import dev.fencing.JobState;
import dev.fencing.postgres.internal.Jdbc;
import dev.fencing.postgres.internal.LeaseSql;
import dev.fencing.postgres.internal.RenderedSql;
import dev.fencing.postgres.internal.jooq.tables.FencingAppendClaim;
import dev.fencing.postgres.internal.jooq.tables.FencingAppendHandout;
import dev.fencing.postgres.internal.jooq.tables.FencingAppendJob;
import dev.fencing.postgres.internal.jooq.tables.FencingAppendOperated;
import dev.fencing.postgres.internal.jooq.tables.FencingAppendRequeue;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Query;
import org.jooq.Record;
import org.jooq.Table;

/**
 * The work a claim of the append-only engine takes again, besides fresh jobs ({@link
 * AppendWindow}): due {@code requeue} rows (a job given back, failed with attempts left, or
 * requeued by an operator), locked and skipped if locked ({@code SKIP LOCKED}), and deleted when
 * taken; and live claim rows whose lease ran out, locked the same way and taken over whole: the row
 * is marked not live (a late write under it finds it so), each of its open jobs is handed out again
 * under a new epoch, ended {@code failed} if its attempts are used up, or, if the batch is full,
 * written to {@code requeue} ready since the lease ran out.
 */
final class Reclaims {

  private final Jdbc jdbc;
  private final RenderedSql requeuedSql;
  private final RenderedSql expiredSql;
  private final RenderedSql unqueueSql;

  @Inject
  Reclaims(Jdbc jdbc) {
    this.jdbc = jdbc;
    DSLContext dsl = jdbc.dsl();
    RenderedSql.Plan indexed = RenderedSql.Plan.INDEXED;
    this.requeuedSql = RenderedSql.of(dsl, indexed, Reclaims::requeuedQuery);
    this.expiredSql = RenderedSql.of(dsl, indexed, Reclaims::expiredQuery);
    this.unqueueSql = RenderedSql.of(dsl, indexed, Reclaims::unqueueQuery);
  }

  /** Due {@code requeue} rows, locked; those another claim holds are skipped. */
  List<Candidate> requeued(Connection connection, String queue, int limit) throws SQLException {
    return Candidate.waiting(connection, requeuedSql, queue, limit, false);
  }

  /** Deletes the {@code requeue} rows of the first {@code taken} of {@code requeued}. */
  void unqueue(Connection connection, List<Candidate> requeued, int taken) throws SQLException {
    if (taken == 0) {
      return;
    }
    Long[] unqueued = new Long[taken];
    for (int i = 0; i < taken; i++) {
      unqueued[i] = requeued.get(i).jobId();
    }
    try (PreparedStatement s = unqueueSql.prepare(connection, Map.of("ids", unqueued))) {
      unqueueSql.update(s);
    }
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

  private static Query unqueueQuery(DSLContext dsl, RenderedSql.Parameters p) {
    FencingAppendRequeue r = FENCING_APPEND_REQUEUE;
    return dsl.deleteFrom(r).where(r.JOB_ID.eq(any(p.bigints("ids"))));
  }

  /**
   * Locks live claim rows whose lease ran out (skipping those a commit holds) and adds their open
   * jobs to {@code open} (attempts left) or {@code spent} (none left), oldest expiry first.
   *
   * @return the claim rows locked, to be marked taken over
   */
  List<Long> expired(
      Connection connection, String queue, int limit, List<Candidate> open, List<Candidate> spent)
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
      Candidate item =
          new Candidate(
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
              row.get(previousOwner),
              0);
      (item.attemptsUsed() >= item.maxAttempts() ? spent : open).add(item);
    }
    return claims;
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
  static void settleTakenOver(
      DSLContext d,
      String queue,
      List<Long> claims,
      List<Candidate> spent,
      List<Candidate> leftOver) {
    if (claims.isEmpty()) {
      return;
    }
    FencingAppendClaim c = FENCING_APPEND_CLAIM;
    d.update(c).set(c.LIVE, false).set(c.OPEN, 0).where(c.ID.in(claims)).execute();
    for (Candidate item : spent) {
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
    for (Candidate item : leftOver) {
      FencingAppendRequeue r = FENCING_APPEND_REQUEUE;
      d.insertInto(r)
          .set(r.JOB_ID, item.jobId())
          .set(r.QUEUE, queue)
          .set(r.READY_AT, item.ready())
          .set(r.EPOCH, item.previousEpoch())
          .set(r.OWNER, item.previousOwner())
          .set(r.ATTEMPTS, item.attemptsUsed())
          .set(r.REASON, inline(AppendState.EXPIRED))
          .set(r.LAST_ERROR, item.lastError())
          .execute();
    }
  }

  /**
   * The job's last error as the other engine words it ({@link LeaseSql#leaseRanOut}): its earlier
   * expiries are its hand-outs after an expiry since an operator last requeued or failed it, as
   * {@link AppendAdmin} counts them.
   */
  private static Field<String> leaseRanOut(Candidate item) {
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
}
