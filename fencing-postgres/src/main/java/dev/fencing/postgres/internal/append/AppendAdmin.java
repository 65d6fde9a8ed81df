package dev.fencing.postgres.internal.append;

import static dev.fencing.postgres.internal.jooq.Tables.FENCING_APPEND_CLAIM;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_APPEND_DONE;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_APPEND_HANDOUT;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_APPEND_JOB;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_APPEND_OPERATED;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_APPEND_REQUEUE;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_APPEND_WINDOW;
import static org.jooq.impl.DSL.any;
import static org.jooq.impl.DSL.count;
import static org.jooq.impl.DSL.currentOffsetDateTime;
import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.inline;
import static org.jooq.impl.DSL.not;
import static org.jooq.impl.DSL.val;

import dev.fencing.FencedQueue;
import dev.fencing.JobState;
import dev.fencing.QueueDepth;
import dev.fencing.internal.Validate;
import dev.fencing.postgres.AdminChange;
import dev.fencing.postgres.EpochOwner;
import dev.fencing.postgres.JobDetails;
import dev.fencing.postgres.QueueSummary;
import dev.fencing.postgres.internal.Admin;
import dev.fencing.postgres.internal.AdminSupport;
import dev.fencing.postgres.internal.Config;
import dev.fencing.postgres.internal.Jdbc;
import dev.fencing.postgres.internal.LeaseSql;
import dev.fencing.postgres.internal.Retention;
import dev.fencing.postgres.internal.jooq.tables.FencingAppendClaim;
import dev.fencing.postgres.internal.jooq.tables.FencingAppendDone;
import dev.fencing.postgres.internal.jooq.tables.FencingAppendHandout;
import dev.fencing.postgres.internal.jooq.tables.FencingAppendOperated;
import dev.fencing.postgres.internal.jooq.tables.FencingAppendRequeue;
import dev.fencing.postgres.internal.jooq.tables.FencingAppendWindow;
import jakarta.inject.Inject;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Record;
import org.jooq.Record4;
import org.jooq.impl.SQLDataType;
import org.jspecify.annotations.Nullable;

/**
 * The operators' view of the append-only engine. A job's state is put together from its rows
 * ({@link AppendState}); a change appends or removes the rows that make the new state, in one
 * transaction, under the lock a claim or a write of the same job takes, so it cannot race either:
 *
 * <ul>
 *   <li><b>Fail a running job</b>: under its claim row's lock, a {@code done} row ({@code failed}),
 *       and the job counted off the claim row into its {@code given_back}, so every later write of
 *       the holder is refused.
 *   <li><b>Fail a requeued job</b>: its {@code requeue} row deleted (a claim holding it is waited
 *       for, and then the job is running), a {@code done} row.
 *   <li><b>Fail a fresh job</b>, never handed out: under the queue's window lock, a {@code done}
 *       row; the row in {@code fencing_append_operated} makes the window skip it.
 *   <li><b>Requeue a failed job</b>: under its last claim row's lock, the {@code done} row deleted,
 *       a {@code requeue} row (attempts 0, ready now), and the job in that claim row's {@code
 *       given_back}, so a late write of the lease that failed it finds it given back rather than
 *       the end it wrote gone.
 * </ul>
 *
 * Every change also writes the job's row of {@code fencing_append_operated}: what was done, at
 * which epoch.
 */
final class AppendAdmin implements Admin {

  private static final String ADMIN_FAILED = "admin_failed";
  private static final String REQUEUED = "requeued";

  /** How many times a change reads the job again when a claim or a write moved it meanwhile. */
  private static final int TRIES = 5;

  private final Jdbc jdbc;
  private final Config config;
  private final Retention retention;
  private final FencedQueue queue;

  @Inject
  AppendAdmin(Jdbc jdbc, Config config, Retention retention, FencedQueue queue) {
    this.jdbc = jdbc;
    this.config = config;
    this.retention = retention;
    this.queue = queue;
  }

  @Override
  public String schema() {
    return config.schema();
  }

  @Override
  public void checkInstalled() {
    AdminSupport.checkInstalled(
        jdbc,
        config.schema(),
        "select table_name from information_schema.tables where table_schema = ?"
            + " and table_name in ('fencing_append_job', 'fencing_append_operated')",
        FENCING_APPEND_OPERATED.getName(),
        "no fencing_append_operated table");
  }

  /**
   * The names come from the job table's window index, skipping from one name to the next (one probe
   * per queue); the counts are {@link AppendStore#depth}'s.
   */
  @Override
  public List<QueueSummary> queues(boolean countCompleted) {
    List<String> names =
        jdbc.guarded(
            () ->
                jdbc.run(
                    c ->
                        jdbc.on(c)
                            .resultQuery(
                                "with recursive n(q) as (select min(queue) from {0} union all"
                                    + " select (select min(queue) from {0} where queue > n.q)"
                                    + " from n where n.q is not null)"
                                    + " select q from n where q is not null order by 1",
                                FENCING_APPEND_JOB)
                            .fetch(0, String.class)));
    Map<String, Long> completed = new TreeMap<>();
    if (countCompleted) {
      FencingAppendDone d = FENCING_APPEND_DONE;
      jdbc.guarded(
              () ->
                  jdbc.run(
                      c ->
                          jdbc.on(c)
                              .select(d.QUEUE, count().cast(SQLDataType.BIGINT))
                              .from(d)
                              .where(d.STATUS.eq(inline(JobState.COMPLETED.dbName())))
                              .groupBy(d.QUEUE)
                              .fetch()))
          .forEach(r -> completed.put(r.value1(), r.value2()));
    }
    List<QueueSummary> summaries = new ArrayList<>();
    for (String name : names) {
      QueueDepth depth = queue.depth(name);
      long done = completed.getOrDefault(name, 0L);
      if (depth.pending() + depth.running() + depth.failed() > 0 || done > 0) {
        summaries.add(
            new QueueSummary(
                name,
                depth.pending(),
                depth.running(),
                depth.failed(),
                countCompleted ? done : null));
      }
    }
    return summaries;
  }

  @Override
  public Optional<JobDetails> job(long jobId) {
    Validate.jobId(jobId);
    return jdbc.guarded(() -> jdbc.run(c -> details(jdbc.on(c), jobId)));
  }

  private Optional<JobDetails> details(DSLContext dsl, long jobId) {
    AppendState state = AppendState.read(dsl, List.of(jobId)).get(jobId);
    if (state == null) {
      return Optional.empty();
    }
    FencingAppendHandout h = FENCING_APPEND_HANDOUT;
    FencingAppendClaim c = FENCING_APPEND_CLAIM;
    List<Record4<Long, String, String, OffsetDateTime>> handouts =
        dsl.select(h.EPOCH, h.CAME_FROM, c.OWNER, c.CLAIMED_AT)
            .from(h)
            .leftJoin(c)
            .on(c.ID.eq(h.CLAIM_ID))
            .where(h.JOB_ID.eq(jobId))
            .orderBy(h.EPOCH)
            .fetch();
    FencingAppendOperated o = FENCING_APPEND_OPERATED;
    Record operated =
        dsl.select(o.EVENT, o.EPOCH, o.AT).from(o).where(o.JOB_ID.eq(jobId)).fetchOne();
    FencingAppendDone d = FENCING_APPEND_DONE;
    OffsetDateTime finishedAt =
        dsl.select(d.FINISHED_AT).from(d).where(d.JOB_ID.eq(jobId)).fetchOne(d.FINISHED_AT);

    long operatedEpoch = operated == null ? -1 : operated.get(o.EPOCH);
    List<EpochOwner> history = new ArrayList<>();
    List<Long> settled = new ArrayList<>();
    int expiries = 0;
    long previous = 0;
    OffsetDateTime updatedAt = state.createdAt();
    for (var handout : handouts) {
      long epoch = handout.value1();
      String from = handout.value2();
      if (handout.value3() != null) {
        history.add(new EpochOwner(epoch, handout.value3()));
      }
      if (handout.value4() != null && handout.value4().isAfter(updatedAt)) {
        updatedAt = handout.value4();
      }
      switch (from) {
        case "fail" -> settled.add(previous);
        case "release" -> settled.add(-previous);
        case "expired" -> expiries += previous > operatedEpoch ? 1 : 0;
        default -> {}
      }
      previous = epoch;
    }
    if (state.readyAt() != null && state.doneStatus() == null) {
      switch (String.valueOf(state.reason())) {
        case "fail" -> settled.add(state.requeueEpoch());
        case "release" -> settled.add(-state.requeueEpoch());
        case "expired" -> expiries++;
        default -> {}
      }
    }
    if (state.doneStatus() != null
        && state.doneError() != null
        && state.doneError().startsWith(LeaseSql.LEASE_RAN_OUT)) {
      expiries++; // the expiry that ended it, written by AppendClaims: no hand-out of its own
    }
    if (operated != null && operated.get(o.AT).isAfter(updatedAt)) {
      updatedAt = operated.get(o.AT);
    }
    if (finishedAt != null && finishedAt.isAfter(updatedAt)) {
      updatedAt = finishedAt;
    }
    JobState now = state.state();
    String lastEvent =
        lastEvent(state, operated == null ? null : operated.get(o.EVENT), operatedEpoch);
    OffsetDateTime runAt =
        state.readyAt() != null && state.doneStatus() == null ? state.readyAt() : state.createdAt();
    return Optional.of(
        new JobDetails(
            state.id(),
            state.queue(),
            now,
            state.owner(),
            state.epoch(),
            state.attempts(),
            state.maxAttempts(),
            expiries,
            state.lastError(),
            lastEvent,
            settled,
            state.createdAt().toInstant(),
            updatedAt.toInstant(),
            runAt.toInstant(),
            now == JobState.RUNNING ? AdminSupport.instant(state.leaseExpiresAt()) : null,
            AdminSupport.instant(finishedAt),
            state.payload(),
            state.result(),
            history.size() > 16 ? history.subList(history.size() - 16, history.size()) : history,
            AdminSupport.messages(dsl, jobId)));
  }

  /** The last event, in the words of the other engine's {@code last_event}. */
  private static String lastEvent(
      AppendState state, @Nullable String operated, long operatedEpoch) {
    JobState now = state.state();
    if (operated != null && operatedEpoch == state.epoch()) {
      if (operated.equals(ADMIN_FAILED) && now == JobState.FAILED) {
        return ADMIN_FAILED;
      }
      if (operated.equals(REQUEUED) && REQUEUED.equals(state.reason())) {
        return REQUEUED;
      }
    }
    if (state.doneStatus() != null) {
      return state.doneStatus();
    }
    if (state.readyAt() != null) {
      return switch (String.valueOf(state.reason())) {
        case "fail" -> "retry";
        case "release" -> "released";
        default -> String.valueOf(state.reason());
      };
    }
    return now == JobState.RUNNING ? "claimed" : "enqueued";
  }

  @Override
  public AdminChange requeue(long jobId) {
    Validate.jobId(jobId);
    return change(
        jobId,
        (dsl, state) -> {
          if (state.state() != JobState.FAILED) {
            return false;
          }
          long epoch = state.epoch();
          if (epoch > 0 && !lockClaimOf(dsl, jobId, epoch)) {
            return null;
          }
          FencingAppendDone d = FENCING_APPEND_DONE;
          Record ended =
              dsl.deleteFrom(d)
                  .where(d.JOB_ID.eq(jobId))
                  .and(d.STATUS.eq(inline(JobState.FAILED.dbName())))
                  .returning(d.QUEUE, d.EPOCH, d.OWNER, d.LAST_ERROR)
                  .fetchOne();
          if (ended == null) {
            return null;
          }
          FencingAppendRequeue r = FENCING_APPEND_REQUEUE;
          dsl.insertInto(r)
              .set(r.JOB_ID, jobId)
              .set(r.QUEUE, ended.get(d.QUEUE))
              .set(r.READY_AT, currentOffsetDateTime())
              .set(r.EPOCH, ended.get(d.EPOCH))
              .set(r.OWNER, ended.get(d.OWNER) == null ? "" : ended.get(d.OWNER))
              .set(r.ATTEMPTS, 0)
              .set(r.REASON, REQUEUED)
              .set(r.LAST_ERROR, ended.get(d.LAST_ERROR))
              .execute();
          if (epoch > 0) {
            giveBack(dsl, jobId, epoch, false);
          }
          operated(dsl, jobId, REQUEUED, epoch);
          return true;
        },
        AdminSupport.REQUEUE_REFUSAL);
  }

  @Override
  public AdminChange fail(long jobId, String reason) {
    Validate.jobId(jobId);
    String kept = AdminSupport.reason(reason);
    return change(
        jobId,
        (dsl, state) -> {
          JobState now = state.state();
          if (now != JobState.PENDING && now != JobState.RUNNING) {
            return false;
          }
          FencingAppendDone d = FENCING_APPEND_DONE;
          long epoch = state.epoch();
          @Nullable String owner = state.owner();
          int attempts = state.attempts();
          if (now == JobState.RUNNING) {
            if (!lockClaimOf(dsl, jobId, epoch) || !runningUnder(dsl, jobId, epoch)) {
              return null;
            }
          } else if (state.readyAt() != null) {
            FencingAppendRequeue r = FENCING_APPEND_REQUEUE;
            if (dsl.deleteFrom(r).where(r.JOB_ID.eq(jobId)).execute() == 0) {
              return null;
            }
          } else {
            lockWindow(dsl, state.queue());
            if (AppendState.read(dsl, List.of(jobId)).get(jobId).handEpoch() != 0) {
              return null;
            }
          }
          int ended =
              dsl.insertInto(d)
                  .set(d.JOB_ID, jobId)
                  .set(d.QUEUE, state.queue())
                  .set(d.EPOCH, epoch)
                  .set(d.STATUS, inline(JobState.FAILED.dbName()))
                  .set(d.OWNER, owner)
                  .set(d.ATTEMPTS, attempts)
                  .set(d.LAST_ERROR, kept)
                  .onConflict(d.JOB_ID)
                  .doNothing()
                  .execute();
          if (ended == 0) {
            return null;
          }
          if (now == JobState.RUNNING) {
            giveBack(dsl, jobId, epoch, true);
          }
          operated(dsl, jobId, ADMIN_FAILED, epoch);
          return true;
        },
        AdminSupport.FAIL_REFUSAL);
  }

  @Override
  public long purge(Duration olderThan, @Nullable String queue, int batchSize) {
    return retention.purge(olderThan, queue, batchSize);
  }

  /** One change: true if made, false if refused, null if the job moved meanwhile (read again). */
  private interface Change {
    @Nullable Boolean apply(DSLContext dsl, AppendState state);
  }

  private AdminChange change(long jobId, Change change, String refusal) {
    // Not retried as a whole: a retry after a lost acknowledgement would see its own change and
    // call it a refusal. The operator reads the job again to know.
    return jdbc.transaction(
        c -> {
          DSLContext dsl = jdbc.on(c);
          for (int i = 0; i < TRIES; i++) {
            AppendState state = AppendState.read(dsl, List.of(jobId)).get(jobId);
            if (state == null) {
              return new AdminChange.NotFound(jobId, config.schema());
            }
            Boolean made = change.apply(dsl, state);
            if (made == null) {
              continue;
            }
            JobDetails details = details(dsl, jobId).orElseThrow();
            if (made) {
              return new AdminChange.Changed(details);
            }
            return new AdminChange.Refused(
                jobId,
                details.state(),
                "job " + jobId + " is " + details.state().dbName() + "; " + refusal);
          }
          throw new IllegalStateException(
              "job " + jobId + " kept changing while read " + TRIES + " times; try again");
        });
  }

  /** Locks the claim row that handed out {@code jobId} at {@code epoch}, as a write does. */
  private static boolean lockClaimOf(DSLContext dsl, long jobId, long epoch) {
    FencingAppendHandout h = FENCING_APPEND_HANDOUT;
    FencingAppendClaim c = FENCING_APPEND_CLAIM;
    return dsl.select(c.ID)
            .from(c)
            .where(c.ID.eq(claimOf(dsl, jobId, epoch)))
            .forNoKeyUpdate()
            .fetchOne()
        != null;
  }

  /** The claim row that handed {@code jobId} out at {@code epoch}. */
  private static Field<Long> claimOf(DSLContext dsl, long jobId, long epoch) {
    FencingAppendHandout h = FENCING_APPEND_HANDOUT;
    return dsl.select(h.CLAIM_ID)
        .from(h)
        .where(h.JOB_ID.eq(jobId))
        .and(h.EPOCH.eq(epoch))
        .<Long>asField();
  }

  /** Whether the claim row of that hand-out still holds the job, read after its lock. */
  private static boolean runningUnder(DSLContext dsl, long jobId, long epoch) {
    AppendState now = AppendState.read(dsl, List.of(jobId)).get(jobId);
    return now.state() == JobState.RUNNING && now.epoch() == epoch;
  }

  /**
   * Puts the job into the {@code given_back} of the claim row that handed it out at {@code epoch};
   * {@code countOff} also counts it off the row's open jobs (it was open).
   */
  private static void giveBack(DSLContext dsl, long jobId, long epoch, boolean countOff) {
    FencingAppendHandout h = FENCING_APPEND_HANDOUT;
    FencingAppendClaim c = FENCING_APPEND_CLAIM;
    var update =
        dsl.update(c)
            .set(
                c.GIVEN_BACK,
                field(
                    "array_append({0}, {1})",
                    SQLDataType.BIGINT.array(), c.GIVEN_BACK, val(jobId)));
    if (countOff) {
      update =
          update
              .set(c.OPEN, c.OPEN.minus(inline(1)))
              .set(c.LIVE, field(c.OPEN.minus(inline(1)).gt(inline(0))));
    }
    update
        .where(c.ID.eq(claimOf(dsl, jobId, epoch)))
        .and(not(val(jobId).eq(any(c.GIVEN_BACK))))
        .execute();
  }

  /** Locks the queue's window, which every claim of the queue holds while it takes fresh jobs. */
  private static void lockWindow(DSLContext dsl, String queue) {
    FencingAppendWindow w = FENCING_APPEND_WINDOW;
    dsl.insertInto(w)
        .set(w.QUEUE, queue)
        .set(w.LO, AppendClaims.NOTHING_VISIBLE)
        .set(w.HI, AppendClaims.NOTHING_VISIBLE)
        .set(w.AFTER_XID, 0L)
        .set(w.AFTER_ID, 0L)
        .onConflictDoNothing()
        .execute();
    dsl.select(w.QUEUE).from(w).where(w.QUEUE.eq(queue)).forUpdate().fetch();
  }

  private static void operated(DSLContext dsl, long jobId, String event, long epoch) {
    FencingAppendOperated o = FENCING_APPEND_OPERATED;
    dsl.insertInto(o)
        .set(o.JOB_ID, jobId)
        .set(o.EVENT, event)
        .set(o.EPOCH, epoch)
        .onConflict(o.JOB_ID)
        .doUpdate()
        .set(o.EVENT, event)
        .set(o.EPOCH, epoch)
        .set(o.AT, currentOffsetDateTime())
        .execute();
  }
}
