package dev.fencing.postgres.internal;

import static dev.fencing.postgres.internal.jooq.Tables.FENCING_REFUSAL;
import static org.jooq.impl.DSL.inline;
import static org.jooq.impl.DSL.val;

import dev.fencing.FencedOutcome;
import dev.fencing.Lease;
import dev.fencing.postgres.admin.RefusedWrite;
import dev.fencing.postgres.internal.jooq.tables.FencingRefusal;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jooq.DSLContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The record of refused writes ({@code fencing_refusal}, schema version 3), for the operators'
 * view: written on the refusal path only, after the refusal is known, by a statement of its own
 * that is best effort (its failure is logged, never the caller's), and read by {@code
 * PostgresAdmin.history}. Retention deletes a job's records with it ({@link
 * EngineStore#deleteQueueControls}).
 */
public final class RefusalLog {

  private static final Logger LOG = LoggerFactory.getLogger(RefusalLog.class);

  /** How many records of one job are kept: each insert deletes those older than the newest. */
  public static final int KEPT = 50;

  /** The longest reason kept: a cancel's reason may be 4,000 characters. */
  private static final int MAX_REASON = 500;

  private final Jdbc jdbc;

  /** Whether a failed insert was logged at WARNING already: later ones go to DEBUG. */
  private final AtomicBoolean warned = new AtomicBoolean();

  RefusalLog(Jdbc jdbc) {
    this.jdbc = jdbc;
  }

  /**
   * Records that {@code lease}'s {@code action} was refused, and returns the refusal. Never fails:
   * a read-only connection, a standby, a schema without the table lose the record, nothing else.
   * Its commit waits for no standby.
   *
   * @param action complete, fail, renew or release
   */
  FencedOutcome.Refused record(Lease lease, String action, FencedOutcome.Refused refused) {
    if (refused instanceof FencedOutcome.Removed) {
      return refused; // the job is gone: no page shows it, and no retention would delete its record
    }
    try {
      jdbc.unreplicated(
          c ->
              jdbc.on(c)
                  .execute(
                      "with gone as (delete from {0} where ctid in (select ctid from {0}"
                          + " where job_id = {1} order by at desc offset {2}))"
                          + " insert into {0} (job_id, epoch, owner, action, kind, reason)"
                          + " values ({1}, {3}, {4}, {5}, {6}, {7})",
                      FENCING_REFUSAL,
                      val(lease.jobId()),
                      inline(KEPT - 1),
                      val(lease.epoch().value()),
                      val(lease.owner()),
                      val(action),
                      val(kind(refused)),
                      val(reason(lease, refused))));
    } catch (RuntimeException e) {
      String what =
          "the refused "
              + action
              + " of job "
              + lease.jobId()
              + " at epoch "
              + lease.epoch().value()
              + " was not recorded in fencing_refusal (schema version 3); the refusal stands";
      if (warned.compareAndSet(false, true)) {
        LOG.warn("{}: {} (later failures are logged at DEBUG)", what, e.getMessage());
      } else {
        LOG.debug(what, e);
      }
    }
    return refused;
  }

  /** The simple name of the refusal's case: Superseded, LeaseExpired, ... */
  static String kind(FencedOutcome.Refused refused) {
    return refused.getClass().getSimpleName();
  }

  /** One line for a person: why {@code lease}'s write was refused. */
  static String reason(Lease lease, FencedOutcome.Refused refused) {
    long mine = lease.epoch().value();
    String text =
        switch (refused) {
          case FencedOutcome.Superseded s ->
              "epoch "
                  + mine
                  + " superseded by epoch "
                  + s.current().value()
                  + (s.currentOwner() == null ? "" : " held by " + s.currentOwner());
          case FencedOutcome.LeaseExpired e ->
              "the lease of epoch " + mine + " expired at " + e.expiredAt() + ", not yet reclaimed";
          case FencedOutcome.NotOwner n ->
              lease.owner()
                  + " never held epoch "
                  + mine
                  + (n.current() == null
                      ? " (the job was never claimed)"
                      : " (now epoch "
                          + n.current().value()
                          + (n.currentOwner() == null ? "" : " held by " + n.currentOwner())
                          + ")");
          case FencedOutcome.AlreadyFinished f ->
              "epoch " + mine + " already ended the job otherwise (now " + f.state().dbName() + ")";
          case FencedOutcome.Removed r -> "the job finished and was removed by retention";
          case FencedOutcome.Cancelled c ->
              "the job was cancelled" + (c.reason() == null ? "" : ": " + c.reason());
        };
    String line = text.replaceAll("\\s+", " ");
    return line.length() <= MAX_REASON ? line : line.substring(0, MAX_REASON - 3) + "...";
  }

  /** The job's records, newest first. */
  public static List<RefusedWrite> read(DSLContext dsl, long jobId) {
    FencingRefusal r = FENCING_REFUSAL;
    return dsl.select(r.EPOCH, r.OWNER, r.ACTION, r.KIND, r.REASON, r.AT)
        .from(r)
        .where(r.JOB_ID.eq(jobId))
        .orderBy(r.AT.desc())
        .limit(KEPT * 2)
        .fetch(
            x ->
                new RefusedWrite(
                    x.value1(),
                    x.value2(),
                    x.value3(),
                    x.value4(),
                    x.value5(),
                    x.value6().toInstant()));
  }
}
