package dev.fencing.postgres.internal;

import static dev.fencing.postgres.internal.jooq.Tables.FENCING_CANCEL;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_JOB_OPTION;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_LIMIT_SLOT;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_OUTBOX;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_PARKED;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_REFUSAL;
import static org.jooq.impl.DSL.selectOne;
import static org.jooq.impl.DSL.val;

import dev.fencing.Epoch;
import dev.fencing.FencedOffException;
import dev.fencing.Job;
import dev.fencing.Lease;
import dev.fencing.Renewal;
import dev.fencing.internal.Validate;
import dev.fencing.postgres.internal.jooq.tables.FencingOutbox;
import jakarta.inject.Provider;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.JSONB;
import org.jooq.Record5;
import org.jooq.TableField;
import org.jspecify.annotations.Nullable;

/**
 * What both engines' stores ({@code inplace.InPlaceStore}, {@code append.AppendStore}) do alike:
 * the job table an enqueue writes, the engine's claim, reads of the engine's tables, the operators'
 * view of them, and a renewal of one lease as a batch of one.
 */
public abstract class EngineStore implements JobStore {

  /** An engine's claim, as {@link JobStore#claimBatch}. */
  @FunctionalInterface
  public interface Claimer {
    List<Job> claimBatch(String queue, String owner, Duration leaseLength, int batchSize);

    /**
     * A job that an earlier try of a claim of {@code queue} by {@code owner} took, as a retry after
     * a lost acknowledgement reads it back: its id, payload, epoch, attempt and lease's expiry.
     */
    static Job taken(
        String queue, String owner, Record5<Long, JSONB, Long, Integer, OffsetDateTime> row) {
      return new Job(
          new Lease(row.value1(), owner, Epoch.of(row.value3()), row.value5().toInstant()),
          queue,
          row.value2().data(),
          row.value4());
    }
  }

  private final JobTable jobs;
  private final Jdbc jdbc;
  private final Claimer claims;
  private final SlotTests slotTests;
  private final Provider<? extends Admin> admin;

  /**
   * @param claims the engine's claim
   * @param admin the engine's operators' view, made when first asked for
   */
  protected EngineStore(
      JobTable jobs,
      Jdbc jdbc,
      Claimer claims,
      SlotTests slotTests,
      Provider<? extends Admin> admin) {
    this.jobs = jobs;
    this.jdbc = jdbc;
    this.claims = claims;
    this.slotTests = slotTests;
    this.admin = admin;
  }

  @Override
  public SlotTests slotTests() {
    return slotTests;
  }

  /** A read of the engine's tables: one statement, retried after a transient failure. */
  protected final <T> T read(Function<DSLContext, T> read) {
    return jdbc.read(read);
  }

  @Override
  public final JobTable jobs() {
    return jobs;
  }

  @Override
  public final List<Job> claimBatch(
      String queue, String owner, Duration leaseLength, int batchSize) {
    return claims.claimBatch(queue, owner, leaseLength, batchSize);
  }

  @Override
  public final Lease renew(Lease lease, Duration leaseLength) {
    Objects.requireNonNull(lease, "lease");
    Validate.leaseLength(leaseLength);
    return switch (renewAll(List.of(lease), leaseLength).getFirst()) {
      case Renewal.Renewed renewed -> renewed.lease();
      case Renewal.Lost lost -> throw new FencedOffException(lost.refusal());
    };
  }

  @Override
  public final Admin admin() {
    return admin.get();
  }

  /** Retention's cut-off: {@code olderThan} before {@code now()} of the database. */
  protected static Field<OffsetDateTime> cutoff(Duration olderThan) {
    return LeaseSql.nowPlusMicros(val(-olderThan.toNanos() / 1_000));
  }

  /**
   * Retention's selection: the ids of up to {@code batchSize} jobs that {@code finished} says are
   * finished, at {@code finishedAt} before {@code cutoff}, of {@code queue} when not null, and have
   * no undelivered outbox message; oldest first, their rows locked {@code SKIP LOCKED}.
   *
   * @param id the job's id, in the table the other columns are of
   */
  protected static List<Long> oldestFinished(
      DSLContext dsl,
      TableField<?, Long> id,
      TableField<?, String> queueColumn,
      TableField<?, OffsetDateTime> finishedAt,
      Condition finished,
      Field<OffsetDateTime> cutoff,
      @Nullable String queue,
      int batchSize) {
    FencingOutbox o = FENCING_OUTBOX;
    Condition old =
        finished
            .and(finishedAt.lt(cutoff))
            .andNotExists(selectOne().from(o).where(o.JOB_ID.eq(id)).and(o.DELIVERED_AT.isNull()));
    if (queue != null) {
      old = old.and(queueColumn.eq(queue));
    }
    return dsl.select(id)
        .from(id.getTable())
        .where(old)
        .orderBy(finishedAt)
        .limit(batchSize)
        .forUpdate()
        .skipLocked()
        .fetch(id);
  }

  /** Deletes the delivered outbox messages of the jobs {@code ids}; returns how many. */
  protected static int deleteDeliveredMessages(DSLContext dsl, List<Long> ids) {
    FencingOutbox o = FENCING_OUTBOX;
    return dsl.deleteFrom(o).where(o.JOB_ID.in(ids)).and(o.DELIVERED_AT.isNotNull()).execute();
  }

  /**
   * Deletes what the queue controls (schema version 2) and the refusals' record (version 3) keep of
   * the jobs {@code ids}, in the caller's transaction, so that none outlives its job: their
   * options, cancels and limit slots, parked rows, of which a finished job should have none, and
   * recorded refused writes.
   */
  protected static void deleteQueueControls(DSLContext dsl, List<Long> ids) {
    dsl.deleteFrom(FENCING_REFUSAL).where(FENCING_REFUSAL.JOB_ID.in(ids)).execute();
    dsl.deleteFrom(FENCING_JOB_OPTION).where(FENCING_JOB_OPTION.JOB_ID.in(ids)).execute();
    dsl.deleteFrom(FENCING_CANCEL).where(FENCING_CANCEL.JOB_ID.in(ids)).execute();
    dsl.deleteFrom(FENCING_PARKED).where(FENCING_PARKED.JOB_ID.in(ids)).execute();
    dsl.deleteFrom(FENCING_LIMIT_SLOT).where(FENCING_LIMIT_SLOT.JOB_ID.in(ids)).execute();
  }
}
