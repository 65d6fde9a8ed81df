package dev.fencing.postgres.internal.inplace;

import static dev.fencing.postgres.internal.jooq.Tables.FENCING_JOB;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_PARKED;
import static org.jooq.impl.DSL.currentOffsetDateTime;
import static org.jooq.impl.DSL.deleteFrom;
import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.inline;
import static org.jooq.impl.DSL.name;
import static org.jooq.impl.DSL.noCondition;
import static org.jooq.impl.DSL.select;
import static org.jooq.impl.DSL.when;

import dev.fencing.Epoch;
import dev.fencing.Job;
import dev.fencing.JobState;
import dev.fencing.Lease;
import dev.fencing.postgres.internal.EngineStore;
import dev.fencing.postgres.internal.Generation;
import dev.fencing.postgres.internal.GroupLimits;
import dev.fencing.postgres.internal.Jdbc;
import dev.fencing.postgres.internal.LeaseSql;
import dev.fencing.postgres.internal.LimitSettings;
import dev.fencing.postgres.internal.OptionRows;
import dev.fencing.postgres.internal.RenderedSql;
import dev.fencing.postgres.internal.RunningLimits;
import dev.fencing.postgres.internal.SlotTests;
import dev.fencing.postgres.internal.jooq.tables.FencingJob;
import dev.fencing.postgres.internal.jooq.tables.FencingParked;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jooq.CommonTableExpression;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Param;
import org.jooq.Query;
import org.jooq.Record1;
import org.jooq.Record3;
import org.jooq.Record4;
import org.jooq.Record5;
import org.jooq.impl.SQLDataType;
import org.jspecify.annotations.Nullable;

/**
 * The claim: one statement per batch.
 *
 * <p>Claimable work is served by priority, then oldest-ready-first across all kinds, then by id: a
 * due pending job is ready since its {@code run_at}, a running job whose lease ran out since its
 * {@code lease_expires_at} (both at priority 0), a parked job (a priority other than 0, schema V2)
 * since its {@code fencing_parked.ready_at}. Three scans, each on an index that holds only
 * claimable rows of its kind, lock up to a batch each ({@code FOR UPDATE SKIP LOCKED}); the three
 * are merged and the batch is taken from the front. An OR across the kinds would scan and sort the
 * whole queue on every claim. The parked rows taken are deleted in the same statement, and their
 * jobs' {@code run_at} set back from {@link OptionRows#PARKED_RUN_AT} to their ready time.
 *
 * <p>Every claim counts an attempt. A lease that ran out on a job whose attempts are used up is not
 * handed out again: the same statement ends that job {@code failed} (epoch unchanged, nothing
 * deleted), so a job that kills its worker every time stops after its last attempt.
 *
 * <p>Each call carries a token stored on the rows it claims. When the statement is retried after a
 * transient failure (its acknowledgement may have been lost after it committed), the retry first
 * looks for running rows with that token and owner, and returns those instead of claiming more.
 */
final class Claims {

  /** How many past owners a job's row keeps, newest last. */
  static final int OWNERS_KEPT = 16;

  /**
   * Whether the lease of the running-limit slot {@code s} is valid at {@code clock_timestamp()}:
   * its job still runs under the slot's epoch and its lease has not run out.
   */
  private static final String SLOT_VALID =
      "exists (select 1 from %s j where j.id = s.job_id and j.status = 'running'"
          + " and j.epoch = s.epoch and j.lease_expires_at > clock_timestamp())";

  /** A group's slot holds while its job runs, whatever its lease (a pending job is given back). */
  private static final String UNDER_WAY =
      "exists (select 1 from %s j where j.id = s.job_id and j.status = 'running')";

  private final Jdbc jdbc;
  private final RunningLimits limits;
  private final SlotTests slotTests;
  private final RenderedSql gatedClaimSql;
  private final RenderedSql claimSql;
  private final RenderedSql agedClaimSql;

  @Inject
  Claims(Jdbc jdbc, RunningLimits limits) {
    this.jdbc = jdbc;
    this.limits = limits;
    String jobs = limits.table("fencing_job");
    this.slotTests =
        new SlotTests(
            SLOT_VALID.formatted(jobs),
            UNDER_WAY.formatted(jobs),
            "select j.id as job_id, j.epoch from "
                + jobs
                + " j where j.queue = ? and j.status = 'running'");
    this.gatedClaimSql =
        RenderedSql.of(
            jdbc.dsl(), RenderedSql.Plan.INDEXED, (d, p) -> claimQuery(d, p, false, true));
    this.claimSql =
        RenderedSql.of(
            jdbc.dsl(), RenderedSql.Plan.INDEXED, (d, p) -> claimQuery(d, p, false, false));
    this.agedClaimSql =
        RenderedSql.of(
            jdbc.dsl(), RenderedSql.Plan.INDEXED, (d, p) -> claimQuery(d, p, true, false));
  }

  /** The engine's tests of a limit's slots. */
  SlotTests slotTests() {
    return slotTests;
  }

  List<Job> claimBatch(String queue, String owner, Duration leaseLength, int batchSize) {
    Map<String, Object> values =
        Map.of(
            "queue", queue,
            "batch", batchSize,
            "owner", owner,
            "micros", leaseLength.toNanos() / 1_000,
            "token", UUID.randomUUID());
    AtomicBoolean retry = new AtomicBoolean();
    List<Job> jobs =
        jdbc.guarded(
            () -> {
              if (retry.getAndSet(true)) {
                List<Job> taken = takenBy(queue, owner, (UUID) values.get("token"));
                if (!taken.isEmpty()) {
                  return taken;
                }
              }
              // one statement for a queue without controls; one that found nothing looks whether
              // controls closed its gate (a second round trip only when it claimed nothing)
              List<Job> plain =
                  jdbc.run(
                      c -> {
                        List<Job> got =
                            claimOnce(c, gatedClaimSql, queue, owner, values, batchSize, null, 0);
                        return got.isEmpty() && limits.limited(c, queue) ? null : got;
                      });
              if (plain != null) {
                return plain;
              }
              return limits.claim(
                  queue,
                  slotTests,
                  batchSize,
                  (c, n, startable, aging) ->
                      claimOnce(
                          c,
                          aging > 0 ? agedClaimSql : claimSql,
                          queue,
                          owner,
                          values,
                          n,
                          startable,
                          aging));
            });
    jobs.sort(Comparator.comparingLong(Job::id));
    return jobs;
  }

  /** One claim statement, of at most {@code n} jobs; of a group's, only {@code startable}. */
  private List<Job> claimOnce(
      Connection c,
      RenderedSql sql,
      String queue,
      String owner,
      Map<String, Object> values,
      int n,
      Long @Nullable [] startable,
      long agingMicros)
      throws SQLException {
    Map<String, Object> batch = GroupLimits.bind(new HashMap<>(values), startable);
    batch.put("batch", n);
    if (agingMicros > 0) {
      batch.put("aging", agingMicros);
    }
    try (PreparedStatement s = sql.prepare(c, batch);
        ResultSet r = sql.query(s)) {
      List<Job> claimed = new ArrayList<>(n);
      while (r.next()) {
        if (r.getBoolean(6)) {
          claimed.add(job(r, queue, owner));
        }
      }
      return claimed;
    }
  }

  /** The jobs an earlier try of this very call claimed, if it landed. */
  private List<Job> takenBy(String queue, String owner, UUID token) {
    FencingJob j = FENCING_JOB;
    return jdbc.run(
        c ->
            jdbc.on(c)
                .select(j.ID, j.PAYLOAD, j.EPOCH, j.ATTEMPTS, j.LEASE_EXPIRES_AT)
                .from(j)
                .where(j.CLAIM_TOKEN.eq(token))
                .and(j.OWNER.eq(owner))
                .and(j.QUEUE.eq(queue))
                .and(j.STATUS.eq(inline(JobState.RUNNING.dbName())))
                .fetch(row -> EngineStore.Claimer.taken(queue, owner, row)));
  }

  private static Job job(ResultSet r, String queue, String owner) throws SQLException {
    long micros = r.getLong(5);
    Lease lease = new Lease(r.getLong(1), owner, Epoch.of(r.getLong(3)), LeaseSql.instant(micros));
    return new Job(lease, queue, r.getString(2), r.getInt(4));
  }

  /**
   * The claim statement; {@code aged}: in the order of {@link
   * dev.fencing.QueueLimits#withPriorityAging} (parameter {@code aging}, microseconds per priority
   * level), else strict.
   */
  private static Query claimQuery(
      DSLContext dsl, RenderedSql.Parameters parameters, boolean aged, boolean gated) {
    FencingJob j = FENCING_JOB;
    Param<String> queue = parameters.varchar("queue");
    Param<Integer> batch = parameters.integer("batch");
    Param<String> owner = parameters.varchar("owner");
    Param<Long> micros = parameters.bigint("micros");
    Param<UUID> token = parameters.uuid("token");
    Field<Long> aging = aged ? parameters.bigint("aging") : inline(0L);
    // the fast path's gate: a queue with controls claims nothing here (evaluated once)
    Condition gate = gated ? LimitSettings.noControls(queue) : noCondition();
    // Plain names: the render mapping would put the user's schema in front of a CTE's name.
    Field<Long> id = field(name("id"), Long.class);
    Field<OffsetDateTime> readyAt = field(name("ready_at"), OffsetDateTime.class);
    Field<Boolean> spent = field(name("spent"), Boolean.class);
    FencingJob r = FENCING_JOB.as("r");
    CommonTableExpression<Record3<Long, OffsetDateTime, Boolean>> expired =
        name("expired")
            .fields("id", "ready_at", "spent")
            .as(
                select(r.ID, r.LEASE_EXPIRES_AT, field(r.ATTEMPTS.ge(r.MAX_ATTEMPTS)))
                    .from(r)
                    .where(r.QUEUE.eq(queue))
                    .and(r.STATUS.eq(inline(JobState.RUNNING.dbName())))
                    .and(r.LEASE_EXPIRES_AT.le(currentOffsetDateTime()))
                    .and(gate)
                    .orderBy(r.LEASE_EXPIRES_AT)
                    .limit(batch)
                    .forUpdate()
                    .skipLocked());
    FencingJob p = FENCING_JOB.as("p");
    Field<Integer> priority = field(name("priority"), Integer.class);
    Field<Boolean> fromParked = field(name("from_parked"), Boolean.class);
    CommonTableExpression<Record5<Long, OffsetDateTime, Boolean, Integer, Boolean>> pending =
        name("pending")
            .fields("id", "ready_at", "spent", "priority", "from_parked")
            .as(
                select(p.ID, p.RUN_AT, inline(false), inline(0), inline(false))
                    .from(p)
                    .where(p.QUEUE.eq(queue))
                    .and(p.STATUS.eq(inline(JobState.PENDING.dbName())))
                    .and(p.RUN_AT.le(currentOffsetDateTime()))
                    .and(gate)
                    .orderBy(p.RUN_AT, p.ID)
                    .limit(batch)
                    .forUpdate()
                    .skipLocked());
    // jobs with a priority wait in fencing_parked (their rows at PARKED_RUN_AT, out of pending's
    // reach): the due ones, highest priority first
    FencingParked k = FENCING_PARKED;
    CommonTableExpression<Record5<Long, OffsetDateTime, Boolean, Integer, Boolean>> parked =
        name("parked")
            .fields("id", "ready_at", "spent", "priority", "from_parked")
            .as(
                select(
                        k.JOB_ID,
                        k.READY_AT,
                        inline(false),
                        k.PRIORITY.cast(Integer.class),
                        inline(true))
                    .from(k)
                    .where(k.QUEUE.eq(queue))
                    .and(k.READY_AT.le(currentOffsetDateTime()))
                    .and(GroupLimits.startableOnly(k, parameters))
                    .and(gate)
                    .orderBy(
                        aged
                            ? List.of(
                                LeaseSql.aged(k.READY_AT, k.PRIORITY, aging).asc(), k.JOB_ID.asc())
                            : List.of(k.PRIORITY.desc(), k.READY_AT.asc(), k.JOB_ID.asc()))
                    .limit(batch)
                    .forUpdate()
                    .skipLocked());
    // By priority (an expired lease at 0), then oldest ready, then id, across all three kinds; a
    // spent lease is ended, not served, so it takes no place in the batch.
    CommonTableExpression<Record4<Long, Boolean, OffsetDateTime, Boolean>> chosen =
        name("chosen")
            .fields("c_id", "c_spent", "c_ready", "c_parked")
            .as(
                select(id, spent, readyAt, inline(false))
                    .from(expired)
                    .where(spent)
                    .unionAll(
                        select(id, spent, readyAt, fromParked)
                            .from(
                                select(
                                        id,
                                        readyAt,
                                        spent,
                                        inline(0).as("priority"),
                                        inline(false).as("from_parked"))
                                    .from(expired)
                                    .where(spent.isFalse())
                                    .unionAll(
                                        select(id, readyAt, spent, priority, fromParked)
                                            .from(pending))
                                    .unionAll(
                                        select(id, readyAt, spent, priority, fromParked)
                                            .from(parked))
                                    .asTable("ready"))
                            .orderBy(
                                aged
                                    ? List.of(
                                        LeaseSql.aged(readyAt, priority, aging).asc(), id.asc())
                                    : List.of(priority.desc(), readyAt.asc(), id.asc()))
                            .limit(batch)));
    // the parked rows taken leave fencing_parked; their jobs' rows get their ready time back
    CommonTableExpression<Record1<Long>> unparked =
        name("unparked")
            .fields("u_id")
            .as(
                deleteFrom(k)
                    .where(
                        k.JOB_ID.in(
                            select(field(name("c_id"), Long.class))
                                .from(chosen)
                                .where(field(name("c_parked"), Boolean.class))))
                    .returningResult(k.JOB_ID));
    Condition isSpent = field(name("c_spent"), Boolean.class).isTrue();
    Field<String> exhausted = LeaseSql.leaseRanOut(j.EXPIRIES, j.ATTEMPTS, j.MAX_ATTEMPTS);
    Condition wasParked = j.RUN_AT.eq(OptionRows.PARKED_RUN_AT);
    return dsl.with(expired)
        .with(pending)
        .with(parked)
        .with(chosen)
        .with(unparked)
        .update(j)
        .set(
            j.STATUS,
            when(isSpent, inline(JobState.FAILED.dbName()))
                .otherwise(inline(JobState.RUNNING.dbName())))
        .set(j.OWNER, when(isSpent, j.OWNER).otherwise(owner))
        .set(j.OWNERS, when(isSpent, j.OWNERS).otherwise(ownersAfterClaim(j, owner)))
        .set(j.EPOCH, when(isSpent, j.EPOCH).otherwise(Generation.next(j.EPOCH)))
        .set(j.ATTEMPTS, when(isSpent, j.ATTEMPTS).otherwise(j.ATTEMPTS.plus(inline(1))))
        .set(
            j.EXPIRIES,
            when(j.STATUS.eq(inline(JobState.RUNNING.dbName())), j.EXPIRIES.plus(inline(1)))
                .otherwise(j.EXPIRIES))
        .set(
            j.LEASE_EXPIRES_AT,
            when(isSpent, field("null", SQLDataType.TIMESTAMPWITHTIMEZONE(6)))
                .otherwise(LeaseSql.nowPlusMicros(micros)))
        .set(j.FINISHED_AT, when(isSpent, currentOffsetDateTime()).otherwise(j.FINISHED_AT))
        .set(j.LAST_ERROR, when(isSpent, exhausted).otherwise(j.LAST_ERROR))
        .set(j.LAST_EVENT, when(isSpent, inline("failed")).otherwise(inline("claimed")))
        .set(j.CLAIM_TOKEN, when(isSpent, j.CLAIM_TOKEN).otherwise(token))
        .set(
            j.RUN_AT,
            when(wasParked, field(name("c_ready"), OffsetDateTime.class)).otherwise(j.RUN_AT))
        .set(j.UPDATED_AT, currentOffsetDateTime())
        .from(chosen)
        .where(j.ID.eq(field(name("c_id"), Long.class)))
        // a parked row hands out only a job still waiting at PARKED_RUN_AT (one an operator
        // failed since is left as it is, its parked row gone)
        .and(
            field(name("c_parked"), Boolean.class)
                .isFalse()
                .or(j.STATUS.eq(inline(JobState.PENDING.dbName())).and(wasParked)))
        .returning(
            j.ID,
            j.PAYLOAD,
            j.EPOCH,
            j.ATTEMPTS,
            LeaseSql.micros(j.LEASE_EXPIRES_AT),
            field(j.STATUS.eq(inline(JobState.RUNNING.dbName()))));
  }

  /**
   * The owner history with {@code owner} appended, keeping the last {@value #OWNERS_KEPT}: element
   * order follows the epochs, since this statement bumps the epoch by exactly 1 with every append.
   */
  private static Field<String[]> ownersAfterClaim(FencingJob j, Field<String> owner) {
    return field(
        "({0} || {1})[greatest(cardinality({0}) + 2 - {2}, 1):]",
        j.OWNERS.getDataType(), j.OWNERS, owner, inline(OWNERS_KEPT));
  }
}
