package dev.fencing.postgres.internal;

import static dev.fencing.postgres.internal.jooq.Tables.FENCING_JOB_ARCHIVE;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_OUTBOX;
import static org.jooq.impl.DSL.field;

import dev.fencing.StoreUnavailableException;
import dev.fencing.internal.Validate;
import jakarta.inject.Inject;
import java.sql.Statement;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.JSONB;
import org.jooq.TableLike;
import org.jooq.impl.SQLDataType;
import org.jspecify.annotations.Nullable;

/**
 * Removes finished (completed or failed) jobs whose {@code finished_at} is older than an age, on
 * the database clock, one batch per transaction, oldest first; which rows a batch takes, and from
 * which tables, is the engine's ({@link JobStore#removeFinished}). Rows are taken {@code FOR UPDATE
 * SKIP LOCKED}, so no batch waits for another, concurrent removals share the work, and a claim or
 * commit never waits for a removal (finished rows are neither claimable nor committable). A job
 * with an undelivered outbox message is kept, whatever its age: the message is still owed to its
 * receiver. The delivered messages of a removed job go with it (into the archive row, when
 * archiving), and so do its rows of the queue controls (options, cancel, limit slots, parked), in
 * the same transaction.
 */
public final class Retention {

  private final Jdbc jdbc;
  private final Config config;
  private final JobStore store;

  @Inject
  Retention(Jdbc jdbc, Config config, JobStore store) {
    this.jdbc = jdbc;
    this.config = config;
    this.store = store;
  }

  /**
   * Removes batches until one is not full.
   *
   * @param queue only this queue's jobs, or every queue's when null
   * @return how many jobs were removed
   * @throws IllegalArgumentException naming the parameter out of range; nothing is removed
   */
  public long purge(Duration olderThan, @Nullable String queue, int batchSize) {
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
  public RetentionBatch batch(
      Duration olderThan, @Nullable String queue, int batchSize, boolean archive) {
    try {
      return jdbc.transactionRetried(
          c -> store.removeFinished(jdbc.on(c), olderThan, queue, batchSize, archive));
    } catch (StoreUnavailableException e) {
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
    } catch (StoreUnavailableException e) {
      throw failed("vacuuming", e);
    }
  }

  private void vacuumOnce() {
    jdbc.runRetried(
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
            List<String> tables = new ArrayList<>(store.vacuumed());
            tables.add("fencing_outbox");
            s.execute("vacuum (skip_locked) " + schema + String.join(", " + schema, tables));
          } finally {
            if (!autoCommit) {
              // as the pool handed it out (the commit that follows has nothing to commit)
              c.setAutoCommit(false);
            }
          }
          return null;
        });
  }

  private StoreUnavailableException failed(String what, StoreUnavailableException e) {
    return StoreFailures.of(config).during(what, e);
  }

  /**
   * Copies the jobs {@code which} selects from {@code from} to the archive, each with its outbox
   * messages (all delivered) as one JSON array; returns how many.
   */
  public static int archive(
      DSLContext dsl,
      Field<Long> id,
      Field<String> queue,
      Field<OffsetDateTime> finishedAt,
      Field<JSONB> row,
      TableLike<?> from,
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
