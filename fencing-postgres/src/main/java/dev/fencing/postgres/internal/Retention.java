package dev.fencing.postgres.internal;

import static dev.fencing.postgres.internal.jooq.Tables.FENCING_APPEND_CLAIM;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_APPEND_DONE;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_APPEND_HANDOUT;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_APPEND_JOB;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_APPEND_OPERATED;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_JOB;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_JOB_ARCHIVE;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_OUTBOX;
import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.inline;
import static org.jooq.impl.DSL.selectOne;
import static org.jooq.impl.DSL.val;

import dev.fencing.JobState;
import dev.fencing.StoreUnavailableException;
import dev.fencing.internal.Validate;
import dev.fencing.postgres.internal.jooq.tables.FencingAppendClaim;
import dev.fencing.postgres.internal.jooq.tables.FencingAppendDone;
import dev.fencing.postgres.internal.jooq.tables.FencingAppendJob;
import dev.fencing.postgres.internal.jooq.tables.FencingJob;
import dev.fencing.postgres.internal.jooq.tables.FencingOutbox;
import jakarta.inject.Inject;
import java.sql.Statement;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.List;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.JSONB;
import org.jooq.exception.DataAccessException;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;
import org.jspecify.annotations.Nullable;

/**
 * Removes finished (completed or failed) jobs whose {@code finished_at} is older than an age, on
 * the database clock, one batch per transaction, oldest first by {@code fencing_job_finished_ix}.
 * Rows are taken {@code FOR UPDATE SKIP LOCKED}, so no batch waits for another, concurrent removals
 * share the work, and a claim or commit never waits for a removal (finished rows are neither
 * claimable nor committable). A job with an undelivered outbox message is kept, whatever its age:
 * the message is still owed to its receiver. The delivered messages of a removed job go with it
 * (into the archive row, when archiving).
 */
public final class Retention {

  /**
   * What one batch removed.
   *
   * @param jobs jobs removed (archived ones included)
   * @param archived jobs copied to the archive first
   * @param messages delivered outbox messages removed with them
   */
  public record Batch(int jobs, int archived, int messages) {}

  private final Jdbc jdbc;
  private final Config config;

  @Inject
  Retention(Jdbc jdbc, Config config) {
    this.jdbc = jdbc;
    this.config = config;
  }

  /**
   * Removes batches until one is not full.
   *
   * @param queue only this queue's jobs, or every queue's when null
   * @return how many jobs were removed
   * @throws IllegalArgumentException naming the parameter out of range; nothing is removed
   */
  long purge(Duration olderThan, @Nullable String queue, int batchSize) {
    Validate.keepFinished("olderThan", olderThan);
    if (queue != null) {
      Validate.identifier("queue", queue);
    }
    Validate.batchSize(batchSize);
    long removed = 0;
    while (true) {
      int n = batch(olderThan, queue, batchSize, false).jobs();
      removed += n;
      if (n < batchSize) {
        return removed;
      }
    }
  }

  /**
   * Removes (or archives, then removes) one batch in one transaction, retried when transient.
   *
   * @throws StoreUnavailableException if the database failed after the transient retries; the batch
   *     removed nothing
   */
  public Batch batch(Duration olderThan, @Nullable String queue, int batchSize, boolean archive) {
    try {
      return jdbc.guarded(
          () ->
              jdbc.transaction(
                  c ->
                      config.appendOnly()
                          ? appendOnlyBatch(jdbc.on(c), olderThan, queue, batchSize, archive)
                          : batch(jdbc.on(c), olderThan, queue, batchSize, archive)));
    } catch (DataAccessException e) {
      throw failed("removing finished jobs", e);
    }
  }

  /**
   * Runs {@code VACUUM (SKIP_LOCKED)} on the job and outbox tables, outside any transaction: it
   * skips a table another VACUUM holds, so rounds in several processes never queue behind each
   * other. A user who does not own the tables gets PostgreSQL's warning and nothing done.
   *
   * @throws StoreUnavailableException if the database failed after the transient retries
   */
  public void vacuum() {
    try {
      vacuumOnce();
    } catch (DataAccessException e) {
      throw failed("vacuuming", e);
    }
  }

  private void vacuumOnce() {
    jdbc.guarded(
        () ->
            jdbc.run(
                c -> {
                  boolean autoCommit = c.getAutoCommit();
                  if (!autoCommit) {
                    // VACUUM cannot run inside a transaction block
                    c.setAutoCommit(true);
                  }
                  try (Statement s = c.createStatement()) {
                    // schema passed Validate.identifier: [a-z_][a-z0-9_]*, so quoting it is
                    // complete
                    String schema = "\"" + config.schema() + "\".";
                    String tables =
                        config.appendOnly()
                            ? "fencing_append_job, fencing_append_handout, fencing_append_done,"
                                + " fencing_append_claim, fencing_append_requeue, fencing_append_operated, fencing_outbox"
                            : "fencing_job, fencing_outbox";
                    s.execute(
                        "vacuum (skip_locked) "
                            + schema
                            + String.join(", " + schema, tables.split(", ")));
                  } finally {
                    if (!autoCommit) {
                      // as the pool handed it out (the commit that follows has nothing to commit)
                      c.setAutoCommit(false);
                    }
                  }
                  return null;
                }));
  }

  private StoreUnavailableException failed(String what, DataAccessException e) {
    return new StoreUnavailableException(
        "PostgreSQL: " + what + " in schema " + config.schema() + ": " + JooqOwnership.describe(e),
        e);
  }

  private static Batch batch(
      DSLContext dsl, Duration olderThan, @Nullable String queue, int batchSize, boolean archive) {
    FencingJob j = FENCING_JOB;
    FencingOutbox o = FENCING_OUTBOX;
    // the same predicate as fencing_job_finished_ix, with inline values, so the planner uses it
    Condition old =
        j.STATUS
            .in(inline(JobState.COMPLETED.dbName()), inline(JobState.FAILED.dbName()))
            .and(j.FINISHED_AT.lt(LeaseSql.nowPlusMicros(val(-olderThan.toNanos() / 1_000))))
            .andNotExists(
                selectOne().from(o).where(o.JOB_ID.eq(j.ID)).and(o.DELIVERED_AT.isNull()));
    if (queue != null) {
      old = old.and(j.QUEUE.eq(queue));
    }
    List<Long> ids =
        dsl.select(j.ID)
            .from(j)
            .where(old)
            .orderBy(j.FINISHED_AT)
            .limit(batchSize)
            .forUpdate()
            .skipLocked()
            .fetch(j.ID);
    if (ids.isEmpty()) {
      return new Batch(0, 0, 0);
    }
    int archived = 0;
    if (archive) {
      FencingJob x = j.as("x");
      archived =
          archive(
              dsl,
              x.ID,
              x.QUEUE,
              x.FINISHED_AT,
              field("to_jsonb({0})", SQLDataType.JSONB, x),
              x,
              x.ID.in(ids));
    }
    int messages =
        dsl.deleteFrom(o).where(o.JOB_ID.in(ids)).and(o.DELIVERED_AT.isNotNull()).execute();
    int jobs = dsl.deleteFrom(j).where(j.ID.in(ids)).execute();
    return new Batch(jobs, archived, messages);
  }

  /**
   * One batch of the append-only engine: the oldest {@code done} rows past the age (and with no
   * undelivered message), locked {@code SKIP LOCKED}, go with their job, hand-outs and delivered
   * messages; claim rows no longer live and older than the age go too (a late write under one finds
   * the job gone, or a newer hand-out). The archive row is the job's and its end's columns in one
   * JSON object.
   */
  private static Batch appendOnlyBatch(
      DSLContext dsl, Duration olderThan, @Nullable String queue, int batchSize, boolean archive) {
    FencingAppendDone d = FENCING_APPEND_DONE;
    FencingOutbox o = FENCING_OUTBOX;
    Field<OffsetDateTime> cutoff = LeaseSql.nowPlusMicros(val(-olderThan.toNanos() / 1_000));
    Condition old =
        d.FINISHED_AT
            .lt(cutoff)
            .andNotExists(
                selectOne().from(o).where(o.JOB_ID.eq(d.JOB_ID)).and(o.DELIVERED_AT.isNull()));
    if (queue != null) {
      old = old.and(d.QUEUE.eq(queue));
    }
    List<Long> ids =
        dsl.select(d.JOB_ID)
            .from(d)
            .where(old)
            .orderBy(d.FINISHED_AT)
            .limit(batchSize)
            .forUpdate()
            .skipLocked()
            .fetch(d.JOB_ID);
    FencingAppendClaim c = FENCING_APPEND_CLAIM;
    List<Long> claims =
        dsl.select(c.ID)
            .from(c)
            .where(c.LIVE.isFalse())
            .and(c.CLAIMED_AT.lt(cutoff))
            .and(queue == null ? DSL.noCondition() : c.QUEUE.eq(queue))
            .orderBy(c.CLAIMED_AT)
            .limit(batchSize)
            .forUpdate()
            .skipLocked()
            .fetch(c.ID);
    if (!claims.isEmpty()) {
      dsl.deleteFrom(c).where(c.ID.in(claims)).execute();
    }
    if (ids.isEmpty()) {
      return new Batch(0, 0, 0);
    }
    FencingAppendJob j = FENCING_APPEND_JOB;
    int archived = 0;
    if (archive) {
      archived =
          archive(
              dsl,
              j.ID,
              j.QUEUE,
              d.FINISHED_AT,
              field("to_jsonb({0}) || to_jsonb({1})", SQLDataType.JSONB, d, j),
              j.join(d).on(d.JOB_ID.eq(j.ID)),
              j.ID.in(ids));
    }
    int messages =
        dsl.deleteFrom(o).where(o.JOB_ID.in(ids)).and(o.DELIVERED_AT.isNotNull()).execute();
    dsl.deleteFrom(FENCING_APPEND_HANDOUT).where(FENCING_APPEND_HANDOUT.JOB_ID.in(ids)).execute();
    dsl.deleteFrom(FENCING_APPEND_OPERATED).where(FENCING_APPEND_OPERATED.JOB_ID.in(ids)).execute();
    dsl.deleteFrom(d).where(d.JOB_ID.in(ids)).execute();
    int jobs = dsl.deleteFrom(j).where(j.ID.in(ids)).execute();
    return new Batch(jobs, archived, messages);
  }

  /**
   * Copies the jobs {@code which} selects from {@code from} to the archive, each with its outbox
   * messages (all delivered) as one JSON array; returns how many.
   */
  private static int archive(
      DSLContext dsl,
      Field<Long> id,
      Field<String> queue,
      Field<OffsetDateTime> finishedAt,
      Field<JSONB> row,
      org.jooq.TableLike<?> from,
      Condition which) {
    return dsl.insertInto(
            FENCING_JOB_ARCHIVE,
            FENCING_JOB_ARCHIVE.ID,
            FENCING_JOB_ARCHIVE.QUEUE,
            FENCING_JOB_ARCHIVE.FINISHED_AT,
            FENCING_JOB_ARCHIVE.JOB,
            FENCING_JOB_ARCHIVE.MESSAGES)
        .select(
            dsl.select(
                    id,
                    queue,
                    finishedAt,
                    row,
                    field(
                        "(select coalesce(jsonb_agg(to_jsonb(m) order by m.idx), '[]'::jsonb)"
                            + " from {0} m where m.job_id = {1})",
                        SQLDataType.JSONB, FENCING_OUTBOX, id))
                .from(from)
                .where(which))
        .execute();
  }
}
