package dev.fencing.postgres.internal;

import static dev.fencing.postgres.internal.jooq.Tables.FENCING_JOB;
import static org.jooq.impl.DSL.currentOffsetDateTime;
import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.inline;
import static org.jooq.impl.DSL.name;

import dev.fencing.JobState;
import dev.fencing.postgres.internal.jooq.tables.FencingJob;
import java.time.Instant;
import java.time.OffsetDateTime;
import org.jooq.Condition;
import org.jooq.Field;
import org.jooq.impl.SQLDataType;

/**
 * The pieces of SQL that the statements on leases share: times on the database clock (a lease's
 * expiry, a retention cut-off) and the compare-and-set that every write of a job's lease goes
 * through. One owner, so that claims, commits and renewals grant and judge a lease the same way.
 */
public final class LeaseSql {

  private LeaseSql() {}

  /** {@code now()} of the database plus {@code micros} microseconds. */
  public static Field<OffsetDateTime> nowPlusMicros(Field<Long> micros) {
    return field(
        "now() + ({0} * interval '1 microsecond')", SQLDataType.TIMESTAMPWITHTIMEZONE(6), micros);
  }

  /** The instant {@code micros} microseconds after 1970, as {@link #micros} reads one. */
  public static Instant instant(long micros) {
    return Instant.ofEpochSecond(
        Math.floorDiv(micros, 1_000_000), Math.floorMod(micros, 1_000_000) * 1_000L);
  }

  /** Microseconds since 1970: far cheaper for the driver to read than a timestamp. */
  public static Field<Long> micros(Field<OffsetDateTime> instant) {
    return field("(extract(epoch from {0}) * 1000000)::bigint", Long.class, instant);
  }

  /**
   * The one compare-and-set every write of a lease goes through, single or batched: the row's id,
   * owner and epoch equal the lease's, the job is running and its lease has not expired.
   */
  public static Condition owns(Field<Long> id, Field<String> owner, Field<Long> epoch) {
    return owns(id, owner, epoch, FENCING_JOB.STATUS.eq(inline(JobState.RUNNING.dbName())));
  }

  private static Condition owns(
      Field<Long> id, Field<String> owner, Field<Long> epoch, Condition running) {
    return owns(id, owner, epoch, running, currentOffsetDateTime());
  }

  private static Condition owns(
      Field<Long> id,
      Field<String> owner,
      Field<Long> epoch,
      Condition running,
      Field<OffsetDateTime> at) {
    FencingJob j = FENCING_JOB;
    return j.ID
        .eq(id)
        .and(j.OWNER.eq(owner))
        .and(j.EPOCH.eq(epoch))
        .and(running)
        .and(j.LEASE_EXPIRES_AT.gt(at));
  }

  /**
   * {@link #owns(Field, Field, Field)} on the columns of an unnest of leases named {@code v_*},
   * with the job's state tested as {@code IS NOT DISTINCT FROM} (the same test on a column that is
   * never null) so that the planner cannot read the rows through the partial index of running jobs.
   * That index keeps an entry for every version a claim wrote until VACUUM clears it, and a batch
   * that took it (as a bitmap scan of every lease not yet run out, joined to the batch by a hash)
   * read all of them: a batched commit cost 4 to 20 ms instead of 1.6 while dead versions
   * accumulated (docs/BENCHMARKS.md). The plan left is the batch's rows looked up one by one by
   * primary key. (Adding {@code id = ANY(ids)} made it worse: the planner then scanned the key by
   * the array and matched every row against the whole batch, 4.2 ms a batch of 100.)
   */
  public static Condition ownsEach() {
    return ownsEach(currentOffsetDateTime());
  }

  /**
   * {@link #ownsEach()} with the lease judged at {@code at}: {@link #CLOCK} for a renewal under a
   * running limit's lock, which must judge at the time it holds the lock, not at its start.
   */
  public static Condition ownsEach(Field<OffsetDateTime> at) {
    return owns(
        field(name("v_id"), Long.class),
        field(name("v_owner"), String.class),
        field(name("v_epoch"), Long.class),
        FENCING_JOB.STATUS.isNotDistinctFrom(inline(JobState.RUNNING.dbName())),
        at);
  }

  /** The database's clock as it reads at the moment, not at the transaction's start. */
  public static final Field<OffsetDateTime> CLOCK =
      field("clock_timestamp()", SQLDataType.TIMESTAMPWITHTIMEZONE(6));

  /** How the last error of a job failed by its lease running out on its last attempt starts. */
  public static final String LEASE_RAN_OUT = "lease ran out";

  /**
   * The last error of a job whose lease ran out on its last attempt, on either engine: "lease ran
   * out once; A of M attempts used", or "N times" when {@code earlierExpiries} came before it.
   */
  public static Field<String> leaseRanOut(
      Field<Integer> earlierExpiries, Field<Integer> attempts, Field<Integer> maxAttempts) {
    return field(
        "'"
            + LEASE_RAN_OUT
            + " ' || case when {0} = 0 then 'once' else ({0} + 1) || ' times' end"
            + " || '; ' || {1} || ' of ' || {2} || ' attempts used'",
        SQLDataType.VARCHAR,
        earlierExpiries,
        attempts,
        maxAttempts);
  }

  /**
   * A job's place in the aged order: {@code ready} minus {@code priority} times {@code agingMicros}
   * microseconds ({@link dev.fencing.QueueLimits#withPriorityAging}).
   */
  public static Field<OffsetDateTime> aged(
      Field<OffsetDateTime> ready, Field<? extends Number> priority, Field<Long> agingMicros) {
    return field(
        "({0} - {1} * {2} * interval '1 microsecond')",
        ready.getDataType(), ready, priority, agingMicros);
  }
}
