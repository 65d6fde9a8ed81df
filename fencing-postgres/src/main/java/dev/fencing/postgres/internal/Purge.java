package dev.fencing.postgres.internal;

import static dev.fencing.postgres.internal.jooq.Tables.FENCING_JOB;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_OUTBOX;
import static org.jooq.impl.DSL.inline;
import static org.jooq.impl.DSL.selectOne;
import static org.jooq.impl.DSL.val;

import dev.fencing.JobState;
import dev.fencing.Validate;
import dev.fencing.postgres.internal.jooq.tables.FencingJob;
import dev.fencing.postgres.internal.jooq.tables.FencingOutbox;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.List;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jspecify.annotations.Nullable;

/**
 * Deletes finished (completed or failed) jobs whose {@code finished_at} is older than an age, on
 * the database clock, in batches of one transaction each, so that no transaction holds many locks
 * and concurrent purges share the work ({@code FOR UPDATE SKIP LOCKED}). A job with an undelivered
 * outbox message is kept, whatever its age: the message is still owed to its receiver. The
 * delivered messages of a deleted job go with it.
 *
 * <p>No index covers finished rows by age (only unfinished and failed rows are indexed), so each
 * batch reads the table until it has found a batch; the retention work of the same issue is where
 * an index for this belongs.
 */
final class Purge {

  /** The shortest age: a job finished a minute ago may still be read by the worker that ran it. */
  static final Duration MIN_AGE = Duration.ofMinutes(1);

  static final Duration MAX_AGE = Duration.ofDays(3650);

  private final Jdbc jdbc;

  @Inject
  Purge(Jdbc jdbc) {
    this.jdbc = jdbc;
  }

  /**
   * @param queue only this queue's jobs, or every queue's when null
   * @param batchSize jobs deleted per transaction, 1 to 10,000
   * @return how many jobs were deleted
   * @throws IllegalArgumentException naming the parameter out of range; nothing is deleted
   */
  long purge(Duration olderThan, @Nullable String queue, int batchSize) {
    checkAge(olderThan);
    if (queue != null) {
      Validate.identifier("queue", queue);
    }
    Validate.batchSize(batchSize);
    long deleted = 0;
    while (true) {
      int n =
          jdbc.guarded(() -> jdbc.transaction(c -> batch(jdbc.on(c), olderThan, queue, batchSize)));
      deleted += n;
      if (n < batchSize) {
        return deleted;
      }
    }
  }

  static Duration checkAge(@Nullable Duration olderThan) {
    if (olderThan == null || olderThan.compareTo(MIN_AGE) < 0 || olderThan.compareTo(MAX_AGE) > 0) {
      throw new IllegalArgumentException(
          "olderThan must be between 1 min and 3650 days, but was " + olderThan);
    }
    return olderThan;
  }

  private static int batch(
      DSLContext dsl, Duration olderThan, @Nullable String queue, int batchSize) {
    FencingJob j = FENCING_JOB;
    FencingOutbox o = FENCING_OUTBOX;
    Condition old =
        j.STATUS
            .in(inline(JobState.COMPLETED.dbName()), inline(JobState.FAILED.dbName()))
            .and(j.FINISHED_AT.lt(JooqQueue.nowPlusMicros(val(-olderThan.toNanos() / 1_000))))
            .andNotExists(
                selectOne().from(o).where(o.JOB_ID.eq(j.ID)).and(o.DELIVERED_AT.isNull()));
    if (queue != null) {
      old = old.and(j.QUEUE.eq(queue));
    }
    List<Long> ids =
        dsl.select(j.ID)
            .from(j)
            .where(old)
            .orderBy(j.ID)
            .limit(batchSize)
            .forUpdate()
            .skipLocked()
            .fetch(j.ID);
    if (ids.isEmpty()) {
      return 0;
    }
    dsl.deleteFrom(o).where(o.JOB_ID.in(ids)).and(o.DELIVERED_AT.isNotNull()).execute();
    return dsl.deleteFrom(j).where(j.ID.in(ids)).execute();
  }
}
