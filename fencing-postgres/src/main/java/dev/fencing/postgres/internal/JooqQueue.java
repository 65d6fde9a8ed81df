package dev.fencing.postgres.internal;

import static dev.fencing.postgres.internal.jooq.Tables.FENCING_JOB;
import static org.jooq.impl.DSL.currentOffsetDateTime;
import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.inline;
import static org.jooq.impl.DSL.name;
import static org.jooq.impl.DSL.param;
import static org.jooq.impl.DSL.select;
import static org.jooq.impl.DSL.selectCount;
import static org.jooq.impl.DSL.val;
import static org.jooq.impl.DSL.when;

import dev.fencing.CommitOutcome;
import dev.fencing.Epoch;
import dev.fencing.FencedOffException;
import dev.fencing.FencedOutcome;
import dev.fencing.FencedQueue;
import dev.fencing.Job;
import dev.fencing.JobSnapshot;
import dev.fencing.JobState;
import dev.fencing.Lease;
import dev.fencing.Validate;
import dev.fencing.postgres.internal.jooq.tables.FencingJob;
import dev.fencing.postgres.internal.jooq.tables.records.FencingJobRecord;
import io.github.resilience4j.retry.Retry;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.jooq.CommonTableExpression;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.JSONB;
import org.jooq.Param;
import org.jooq.Query;
import org.jooq.Record;
import org.jooq.Record1;
import org.jooq.Table;
import org.jooq.exception.DataAccessException;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;

/**
 * The PostgreSQL queue: one statement per claim (a batch included), one compare-and-set per commit.
 * Leases are set and judged with {@code now()} of the database.
 */
public final class JooqQueue implements FencedQueue {

  private static final int MAX_ERROR_LENGTH = 4000;
  private static final int ENQUEUE_CHUNK = 10_000;

  private final DSLContext dsl;
  private final Retry retry;
  private final Config config;
  private final RenderedSql claimSql;
  private final RenderedSql completeSql;

  private final DataSource dataSource;

  @Inject
  JooqQueue(DSLContext dsl, DataSource dataSource, Retry retry, Config config) {
    this.dsl = dsl;
    this.dataSource = dataSource;
    this.retry = retry;
    this.config = config;
    this.claimSql = new RenderedSql(dsl, claimQuery());
    this.completeSql = new RenderedSql(dsl, completeQuery());
  }

  @Override
  public long enqueue(String queue, String payload) {
    return enqueueAll(queue, List.of(payload)).getFirst();
  }

  @Override
  public List<Long> enqueueAll(String queue, List<String> payloads) {
    Validate.identifier("queue", queue);
    Objects.requireNonNull(payloads, "payloads");
    if (payloads.isEmpty()) {
      return List.of();
    }
    for (int i = 0; i < payloads.size(); i++) {
      Validate.json("payloads[" + i + "]", payloads.get(i));
    }
    // Not retried: after a lost acknowledgement a retry could enqueue the jobs twice. Chunks keep
    // each statement under PostgreSQL's 65,535 bind values; one transaction keeps it all or none.
    return dsl.transactionResult(
        tx -> {
          List<Long> ids = new ArrayList<>(payloads.size());
          for (int from = 0; from < payloads.size(); from += ENQUEUE_CHUNK) {
            var insert =
                tx.dsl()
                    .insertInto(
                        FENCING_JOB,
                        FENCING_JOB.QUEUE,
                        FENCING_JOB.PAYLOAD,
                        FENCING_JOB.MAX_ATTEMPTS);
            for (String payload :
                payloads.subList(from, Math.min(payloads.size(), from + ENQUEUE_CHUNK))) {
              insert = insert.values(queue, JSONB.valueOf(payload), config.maxAttempts());
            }
            ids.addAll(insert.returning(FENCING_JOB.ID).fetch(FENCING_JOB.ID));
          }
          return ids;
        });
  }

  @Override
  public Optional<Job> claim(String queue, String owner, Duration leaseLength) {
    List<Job> jobs = claimBatch(queue, owner, leaseLength, 1);
    return jobs.isEmpty() ? Optional.empty() : Optional.of(jobs.getFirst());
  }

  @Override
  public List<Job> claimBatch(String queue, String owner, Duration leaseLength, int batchSize) {
    Validate.identifier("queue", queue);
    Validate.owner(owner);
    Validate.leaseLength(leaseLength);
    Validate.batchSize(batchSize);
    Map<String, Object> values =
        Map.of(
            "queue", queue,
            "batch", batchSize,
            "owner", owner,
            "micros", leaseLength.toNanos() / 1_000);
    List<Job> jobs =
        guarded(
            () ->
                jdbc(
                    c -> {
                      try (PreparedStatement s = claimSql.prepare(c, values);
                          ResultSet r = s.executeQuery()) {
                        List<Job> claimed = new ArrayList<>(batchSize);
                        while (r.next()) {
                          long micros = r.getLong(5);
                          Lease lease =
                              new Lease(
                                  r.getLong(1),
                                  owner,
                                  Epoch.of(r.getLong(3)),
                                  Instant.ofEpochSecond(
                                      micros / 1_000_000, micros % 1_000_000 * 1_000));
                          claimed.add(new Job(lease, queue, r.getString(2), r.getInt(4)));
                        }
                        return claimed;
                      }
                    }));
    jobs.sort(Comparator.comparingLong(Job::id));
    return jobs;
  }

  /**
   * The claim: two index scans, each on a partial index that holds only claimable rows: leases that
   * ran out first (oldest expiry first), then due pending jobs. One OR across both would scan and
   * sort the whole queue on every claim. Rendered once, with named parameters.
   */
  private Query claimQuery() {
    FencingJob j = FENCING_JOB;
    Param<String> queue = param("queue", SQLDataType.VARCHAR);
    Param<Integer> batch = param("batch", SQLDataType.INTEGER);
    FencingJob r = FENCING_JOB.as("r");
    CommonTableExpression<Record1<Long>> expired =
        name("expired")
            .as(
                select(r.ID)
                    .from(r)
                    .where(r.QUEUE.eq(queue))
                    .and(r.STATUS.eq(inline(JobState.RUNNING.dbName())))
                    .and(r.LEASE_EXPIRES_AT.le(currentOffsetDateTime()))
                    .orderBy(r.LEASE_EXPIRES_AT)
                    .limit(batch)
                    .forUpdate()
                    .skipLocked());
    FencingJob p = FENCING_JOB.as("p");
    CommonTableExpression<Record1<Long>> pending =
        name("pending")
            .as(
                select(p.ID)
                    .from(p)
                    .where(p.QUEUE.eq(queue))
                    .and(p.STATUS.eq(inline(JobState.PENDING.dbName())))
                    .and(p.RUN_AT.le(currentOffsetDateTime()))
                    .orderBy(p.RUN_AT, p.ID)
                    .limit(batch.minus(field(selectCount().from(expired))))
                    .forUpdate()
                    .skipLocked());
    // Plain names: the render mapping would put the user's schema in front of a CTE's name.
    Condition chosen =
        j.ID.in(
            select(field(name("id"), Long.class))
                .from(expired)
                .unionAll(select(field(name("id"), Long.class)).from(pending)));
    return dsl.with(expired)
        .with(pending)
        .update(j)
        .set(j.STATUS, inline(JobState.RUNNING.dbName()))
        .set(j.OWNER, param("owner", SQLDataType.VARCHAR))
        .set(j.EPOCH, j.EPOCH.plus(inline(1L)))
        .set(j.ATTEMPTS, j.ATTEMPTS.plus(inline(1)))
        .set(j.LEASE_EXPIRES_AT, nowPlusMicros(param("micros", SQLDataType.BIGINT)))
        .set(j.LAST_EVENT, inline("claimed"))
        .set(j.UPDATED_AT, currentOffsetDateTime())
        .where(chosen)
        .returning(
            j.ID,
            j.PAYLOAD,
            j.EPOCH,
            j.ATTEMPTS,
            // microseconds since 1970: far cheaper for the driver to read than a timestamp
            field("(extract(epoch from {0}) * 1000000)::bigint", Long.class, j.LEASE_EXPIRES_AT));
  }

  /** The single-job compare-and-set of {@link #complete}, rendered once. */
  private Query completeQuery() {
    FencingJob j = FENCING_JOB;
    return dsl.update(j)
        .set(j.STATUS, inline(JobState.COMPLETED.dbName()))
        .set(j.RESULT, param("result", SQLDataType.JSONB))
        .set(j.LEASE_EXPIRES_AT, field("null", SQLDataType.TIMESTAMPWITHTIMEZONE(6)))
        .set(j.FINISHED_AT, currentOffsetDateTime())
        .set(j.LAST_EVENT, inline("completed"))
        .set(j.UPDATED_AT, currentOffsetDateTime())
        .where(j.ID.eq(param("id", SQLDataType.BIGINT)))
        .and(j.OWNER.eq(param("owner", SQLDataType.VARCHAR)))
        .and(j.EPOCH.eq(param("epoch", SQLDataType.BIGINT)))
        .and(j.STATUS.eq(inline(JobState.RUNNING.dbName())))
        .and(j.LEASE_EXPIRES_AT.gt(currentOffsetDateTime()));
  }

  @Override
  public Lease renew(Lease lease, Duration leaseLength) {
    Objects.requireNonNull(lease, "lease");
    Validate.leaseLength(leaseLength);
    FencingJob j = FENCING_JOB;
    Optional<OffsetDateTime> expiry =
        guarded(
            () ->
                dsl.update(j)
                    .set(j.LEASE_EXPIRES_AT, nowPlus(leaseLength))
                    .set(j.LAST_EVENT, inline("renewed"))
                    .set(j.UPDATED_AT, currentOffsetDateTime())
                    .where(owns(lease))
                    .returning(j.LEASE_EXPIRES_AT)
                    .fetchOptional(j.LEASE_EXPIRES_AT));
    if (expiry.isPresent()) {
      return new Lease(lease.jobId(), lease.owner(), lease.epoch(), expiry.get().toInstant());
    }
    throw new FencedOffException(refusal(lease));
  }

  @Override
  public FencedOutcome.Accepted complete(Lease lease, String result) {
    Objects.requireNonNull(lease, "lease");
    Validate.json("result", result);
    FencingJob j = FENCING_JOB;
    Map<String, Object> values =
        Map.of(
            "result", result,
            "id", lease.jobId(),
            "owner", lease.owner(),
            "epoch", lease.epoch().value());
    return commit(
        lease,
        () ->
            jdbc(
                c -> {
                  try (PreparedStatement s = completeSql.prepare(c, values)) {
                    return s.executeUpdate();
                  }
                }),
        () -> j.LAST_EVENT.eq(inline("completed")).and(j.RESULT.eq(JSONB.valueOf(result))));
  }

  @Override
  public List<CommitOutcome> completeAll(List<Completion> completions) {
    Objects.requireNonNull(completions, "completions");
    int n = completions.size();
    Long[] ids = new Long[n];
    String[] owners = new String[n];
    Long[] epochs = new Long[n];
    JSONB[] results = new JSONB[n];
    for (int i = 0; i < n; i++) {
      Completion c = completions.get(i);
      Validate.json("completions[" + i + "].result", c.result());
      ids[i] = c.lease().jobId();
      owners[i] = c.lease().owner();
      epochs[i] = c.lease().epoch().value();
      results[i] = JSONB.valueOf(c.result());
    }
    if (n == 0) {
      return List.of();
    }
    FencingJob j = FENCING_JOB;
    Table<?> v =
        DSL.table(
                "unnest({0}, {1}, {2}, {3})",
                val(ids, SQLDataType.BIGINT.array()),
                val(owners, SQLDataType.VARCHAR.array()),
                val(epochs, SQLDataType.BIGINT.array()),
                val(results, SQLDataType.JSONB.array()))
            .as("v", "v_id", "v_owner", "v_epoch", "v_result");
    // Unqualified, uniquely named columns: the render mapping would qualify "v" with the schema.
    Field<Long> vId = field(name("v_id"), Long.class);
    // One compare-and-set for the whole batch: each row must still be owned by its lease.
    Set<Long> committed =
        new HashSet<>(
            guarded(
                () ->
                    dsl.update(j)
                        .set(j.STATUS, inline(JobState.COMPLETED.dbName()))
                        .set(j.RESULT, field(name("v_result"), SQLDataType.JSONB))
                        .set(j.LEASE_EXPIRES_AT, (OffsetDateTime) null)
                        .set(j.FINISHED_AT, currentOffsetDateTime())
                        .set(j.LAST_EVENT, inline("completed"))
                        .set(j.UPDATED_AT, currentOffsetDateTime())
                        .from(v)
                        .where(j.ID.eq(vId))
                        .and(j.OWNER.eq(field(name("v_owner"), String.class)))
                        .and(j.EPOCH.eq(field(name("v_epoch"), Long.class)))
                        .and(j.STATUS.eq(inline(JobState.RUNNING.dbName())))
                        .and(j.LEASE_EXPIRES_AT.gt(currentOffsetDateTime()))
                        .returning(j.ID)
                        .fetch(j.ID)));
    List<CommitOutcome> outcomes = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      Lease lease = completions.get(i).lease();
      if (committed.remove(lease.jobId())) {
        outcomes.add(new FencedOutcome.Accepted(lease.key(), lease.epoch(), false));
      } else {
        outcomes.add(explainMiss(lease, completions.get(i).result()));
      }
    }
    return outcomes;
  }

  /** The rare path of a batch: a completion the compare-and-set did not take. */
  private FencedOutcome explainMiss(Lease lease, String result) {
    FencingJob j = FENCING_JOB;
    JSONB json = JSONB.valueOf(result);
    FencedOutcome.Refused refused = refusal(lease);
    if (refused instanceof FencedOutcome.AlreadyFinished
        && isRepeat(lease, j.LAST_EVENT.eq(inline("completed")).and(j.RESULT.eq(json)))) {
      return new FencedOutcome.Accepted(lease.key(), lease.epoch(), true);
    }
    return refused;
  }

  @Override
  public FencedOutcome.Accepted fail(Lease lease, String error, Duration retryDelay) {
    Objects.requireNonNull(lease, "lease");
    Objects.requireNonNull(error, "error");
    Validate.delay("retryDelay", retryDelay);
    String kept = error.length() > MAX_ERROR_LENGTH ? error.substring(0, MAX_ERROR_LENGTH) : error;
    FencingJob j = FENCING_JOB;
    Condition exhausted = j.ATTEMPTS.ge(j.MAX_ATTEMPTS);
    return commit(
        lease,
        () ->
            dsl.update(j)
                .set(
                    j.STATUS,
                    when(exhausted, inline(JobState.FAILED.dbName()))
                        .otherwise(inline(JobState.PENDING.dbName())))
                .set(j.RUN_AT, nowPlus(retryDelay))
                .set(j.LAST_ERROR, kept)
                .set(j.LEASE_EXPIRES_AT, (OffsetDateTime) null)
                .set(
                    j.FINISHED_AT,
                    when(exhausted, currentOffsetDateTime()).otherwise((OffsetDateTime) null))
                .set(j.LAST_EVENT, when(exhausted, inline("failed")).otherwise(inline("retry")))
                .set(j.UPDATED_AT, currentOffsetDateTime())
                .where(owns(lease))
                .execute(),
        () -> j.LAST_EVENT.in(inline("failed"), inline("retry")).and(j.LAST_ERROR.eq(val(kept))));
  }

  @Override
  public FencedOutcome.Accepted release(Lease lease) {
    Objects.requireNonNull(lease, "lease");
    FencingJob j = FENCING_JOB;
    return commit(
        lease,
        () ->
            dsl.update(j)
                .set(j.STATUS, inline(JobState.PENDING.dbName()))
                .set(j.RUN_AT, currentOffsetDateTime())
                .set(j.ATTEMPTS, j.ATTEMPTS.minus(inline(1)))
                .set(j.LEASE_EXPIRES_AT, (OffsetDateTime) null)
                .set(j.LAST_EVENT, inline("released"))
                .set(j.UPDATED_AT, currentOffsetDateTime())
                .where(owns(lease))
                .execute(),
        () -> j.LAST_EVENT.eq(inline("released")));
  }

  @Override
  public Optional<JobSnapshot> find(long jobId) {
    Validate.jobId(jobId);
    return guarded(
            () -> dsl.selectFrom(FENCING_JOB).where(FENCING_JOB.ID.eq(jobId)).fetchOptional())
        .map(JooqQueue::snapshot);
  }

  /**
   * The compare-and-set: the lease's owner and epoch, on a running job whose lease has not expired.
   */
  private static Condition owns(Lease lease) {
    FencingJob j = FENCING_JOB;
    return j.ID
        .eq(lease.jobId())
        .and(j.OWNER.eq(lease.owner()))
        .and(j.EPOCH.eq(lease.epoch().value()))
        .and(j.STATUS.eq(inline(JobState.RUNNING.dbName())))
        .and(j.LEASE_EXPIRES_AT.gt(currentOffsetDateTime()));
  }

  private FencedOutcome.Accepted commit(
      Lease lease, Supplier<Integer> compareAndSet, Supplier<Condition> sameWriteAgain) {
    int updated = guarded(compareAndSet);
    if (updated == 1) {
      return new FencedOutcome.Accepted(lease.key(), lease.epoch(), false);
    }
    FencedOutcome.Refused refused = refusal(lease);
    if (refused instanceof FencedOutcome.AlreadyFinished && isRepeat(lease, sameWriteAgain.get())) {
      return new FencedOutcome.Accepted(lease.key(), lease.epoch(), true);
    }
    throw new FencedOffException(refused);
  }

  private boolean isRepeat(Lease lease, Condition sameWriteAgain) {
    return guarded(
        () ->
            dsl.fetchExists(
                FENCING_JOB,
                FENCING_JOB
                    .ID
                    .eq(lease.jobId())
                    .and(FENCING_JOB.EPOCH.eq(lease.epoch().value()))
                    .and(FENCING_JOB.OWNER.eq(lease.owner()))
                    .and(sameWriteAgain)));
  }

  /**
   * Explains why a compare-and-set matched no row, from a fresh read. Epochs only go up, so a read
   * later than the write still tells the truth about who won.
   */
  private FencedOutcome.Refused refusal(Lease lease) {
    Record row =
        guarded(
            () ->
                dsl.select(
                        FENCING_JOB.STATUS,
                        FENCING_JOB.OWNER,
                        FENCING_JOB.EPOCH,
                        FENCING_JOB.LEASE_EXPIRES_AT)
                    .from(FENCING_JOB)
                    .where(FENCING_JOB.ID.eq(lease.jobId()))
                    .fetchOne());
    if (row == null) {
      throw new IllegalArgumentException(
          "jobId must name an existing job, but was " + lease.jobId() + " (unknown)");
    }
    return Refusals.classify(
        lease,
        JobState.fromDbName(row.get(FENCING_JOB.STATUS)),
        row.get(FENCING_JOB.OWNER),
        row.get(FENCING_JOB.EPOCH),
        row.get(FENCING_JOB.LEASE_EXPIRES_AT));
  }

  /** {@code now()} of the database plus {@code duration}, to the microsecond. */
  private static Field<OffsetDateTime> nowPlus(Duration duration) {
    return nowPlusMicros(val(duration.toNanos() / 1_000));
  }

  private static Field<OffsetDateTime> nowPlusMicros(Field<Long> micros) {
    return field(
        "now() + ({0} * interval '1 microsecond')", SQLDataType.TIMESTAMPWITHTIMEZONE(6), micros);
  }

  /** Runs {@code work} on a connection of its own; a failure is a {@link DataAccessException}. */
  private <T> T jdbc(JdbcWork<T> work) {
    try (Connection c = dataSource.getConnection()) {
      return work.run(c);
    } catch (SQLException e) {
      throw new DataAccessException(e.getMessage(), e);
    }
  }

  @FunctionalInterface
  private interface JdbcWork<T> {
    T run(Connection connection) throws SQLException;
  }

  private <T> T guarded(Supplier<T> statement) {
    return Retry.decorateSupplier(retry, statement).get();
  }

  private static JobSnapshot snapshot(FencingJobRecord r) {
    return new JobSnapshot(
        r.getId(),
        r.getQueue(),
        JobState.fromDbName(r.getStatus()),
        r.getOwner(),
        r.getEpoch(),
        r.getAttempts(),
        r.getMaxAttempts(),
        r.getPayload().data(),
        r.getResult() == null ? null : r.getResult().data(),
        r.getLastError(),
        r.getRunAt().toInstant(),
        r.getLeaseExpiresAt() == null ? null : r.getLeaseExpiresAt().toInstant());
  }
}
