package dev.fencing.postgres.internal.inplace;

import static dev.fencing.postgres.internal.jooq.Tables.FENCING_JOB;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_JOB_OPTION;
import static org.jooq.impl.DSL.abs;
import static org.jooq.impl.DSL.arrayAppend;
import static org.jooq.impl.DSL.arrayFilter;
import static org.jooq.impl.DSL.currentOffsetDateTime;
import static org.jooq.impl.DSL.exists;
import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.inline;
import static org.jooq.impl.DSL.name;
import static org.jooq.impl.DSL.select;
import static org.jooq.impl.DSL.selectOne;
import static org.jooq.impl.DSL.trueCondition;
import static org.jooq.impl.DSL.update;
import static org.jooq.impl.DSL.val;
import static org.jooq.impl.DSL.when;

import dev.fencing.CommitOutcome;
import dev.fencing.FencedOffException;
import dev.fencing.FencedOutcome;
import dev.fencing.JobConsumer.Completion;
import dev.fencing.JobState;
import dev.fencing.Lease;
import dev.fencing.OutboxMessage;
import dev.fencing.StoreUnavailableException;
import dev.fencing.internal.Batches;
import dev.fencing.internal.Validate;
import dev.fencing.postgres.internal.CommitFrame;
import dev.fencing.postgres.internal.Jdbc;
import dev.fencing.postgres.internal.JsonProbe;
import dev.fencing.postgres.internal.LeaseArrays;
import dev.fencing.postgres.internal.LeaseSql;
import dev.fencing.postgres.internal.OptionRows;
import dev.fencing.postgres.internal.OutboxWrites;
import dev.fencing.postgres.internal.RenderedSql;
import dev.fencing.postgres.internal.Text;
import dev.fencing.postgres.internal.jooq.tables.FencingJob;
import dev.fencing.postgres.internal.jooq.tables.FencingJobOption;
import dev.fencing.postgres.internal.jooq.tables.records.FencingJobRecord;
import jakarta.inject.Inject;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Supplier;
import org.jooq.CommonTableExpression;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.JSONB;
import org.jooq.Query;
import org.jooq.Record1;
import org.jooq.Record3;
import org.jooq.Table;
import org.jooq.UpdateSetFirstStep;
import org.jooq.UpdateSetMoreStep;
import org.jooq.impl.SQLDataType;
import org.jspecify.annotations.Nullable;

/**
 * Commits of results: the single compare-and-set of {@code complete} and the batched one of {@code
 * completeAll}, both rendered once. Each item of a batch is matched on its whole lease (job, owner
 * and epoch) by its position in the batch, never on the job id alone.
 */
final class Commits {

  /** How many epochs back a retried fail or release can still be told to have landed. */
  private static final long SETTLED_EPOCHS_KEPT = 16;

  private final Jdbc jdbc;
  private final InPlaceRefusals refusals;
  private final JsonProbe probe;
  private final OutboxWrites outbox;
  private final RenderedSql completeSql;
  private final RenderedSql completeAllSql;

  @Inject
  Commits(Jdbc jdbc, InPlaceRefusals refusals, JsonProbe probe, OutboxWrites outbox) {
    this.jdbc = jdbc;
    this.refusals = refusals;
    this.probe = probe;
    this.outbox = outbox;
    this.completeSql = RenderedSql.of(jdbc.dsl(), RenderedSql.Plan.CACHED, Commits::completeQuery);
    this.completeAllSql =
        RenderedSql.of(jdbc.dsl(), RenderedSql.Plan.INDEXED, Commits::completeAllQuery);
  }

  FencedOutcome.Accepted complete(Lease lease, String result) {
    return complete(lease, result, List.of());
  }

  /**
   * The compare-and-set of {@code complete}; with messages, it and their insert are one
   * transaction, and the insert runs only if the compare-and-set matched.
   */
  FencedOutcome.Accepted complete(Lease lease, String result, List<OutboxMessage> messages) {
    Objects.requireNonNull(lease, "lease");
    Validate.json("result", result);
    Batches.messages("messages", messages);
    Text.requireSendable("result", result);
    OutboxWrites.requireSendable("messages", messages);
    Map<String, Object> values =
        Map.of(
            "result", result,
            "id", lease.jobId(),
            "owner", lease.owner(),
            "epoch", lease.epoch().value());
    try {
      Jdbc.Work<Integer> compareAndSet =
          c -> {
            int updated;
            try (PreparedStatement s = completeSql.prepare(c, values)) {
              updated = s.executeUpdate();
            }
            if (updated == 1) {
              outbox.insert(c, OutboxWrites.rows(lease, messages));
            }
            return updated;
          };
      return commit(
          lease,
          () -> messages.isEmpty() ? jdbc.run(compareAndSet) : jdbc.transaction(compareAndSet),
          () -> completedWith(result));
    } catch (StoreUnavailableException e) {
      SQLException refusal = Text.dataException(e);
      if (refusal == null) {
        throw e;
      }
      throw firstInvalid(result, messages, "", e, refusal);
    }
  }

  /**
   * The refusal of the first value (the result, then each message's payload) that {@code jsonb}
   * refuses, named with {@code prefix}; {@code failure}'s own refusal if the probe finds none.
   */
  private IllegalArgumentException firstInvalid(
      String result,
      List<OutboxMessage> messages,
      String prefix,
      RuntimeException failure,
      SQLException refusal) {
    if (messages.isEmpty()) {
      return Text.invalidJson(prefix + "result", result, refusal);
    }
    List<String> values = CommitFrame.jsonValues(result, messages);
    Map<Integer, SQLException> refused = probe.refused(values, true);
    if (refused.isEmpty()) {
      throw failure;
    }
    int k = refused.keySet().iterator().next();
    return Text.invalidJson(CommitFrame.jsonName(prefix, k), values.get(k), refused.get(k));
  }

  List<CommitOutcome> completeAll(List<Completion> completions) {
    return CommitFrame.completeAll(
        completions,
        CommitFrame.BATCH_NAMES,
        probe,
        items -> {
          Set<Integer> committed = compareAndSetAll(completions, items);
          Map<Integer, CommitOutcome> outcomes = new HashMap<>();
          for (int i : items) {
            Lease lease = completions.get(i).lease();
            outcomes.put(
                i,
                committed.contains(i)
                    ? new FencedOutcome.Accepted(lease.key(), lease.epoch(), false)
                    : explainMiss(lease, completions.get(i).result()));
          }
          return outcomes;
        });
  }

  /**
   * One compare-and-set for {@code items}; returns the positions in completions it committed. The
   * rows are sent, and so locked, in job id order, as the batched renewal locks them: two batches
   * that lock overlapping rows in different orders deadlock, and PostgreSQL breaks a deadlock only
   * after {@code deadlock_timeout} (1 s), which stalled every commit of a runtime whose heartbeat
   * renewed while its committer committed.
   */
  private Set<Integer> compareAndSetAll(List<Completion> completions, List<Integer> unordered) {
    List<Integer> items = new ArrayList<>(unordered);
    items.sort(Comparator.comparingLong(i -> completions.get(i).lease().jobId()));
    Map<String, Object> values =
        LeaseArrays.of(items.stream().map(i -> completions.get(i).lease()).toList()).values();
    values.put(
        "results", items.stream().map(i -> completions.get(i).result()).toArray(String[]::new));
    boolean withMessages = items.stream().anyMatch(i -> !completions.get(i).messages().isEmpty());
    Jdbc.Work<Set<Integer>> compareAndSet =
        c -> {
          Set<Integer> committed = new HashSet<>();
          try (PreparedStatement s = completeAllSql.prepare(c, values);
              ResultSet r = completeAllSql.query(s)) {
            while (r.next()) {
              committed.add(items.get((int) r.getLong(1) - 1));
            }
          }
          List<OutboxWrites.Row> rows = new ArrayList<>();
          for (int i : items) {
            if (committed.contains(i)) {
              Completion done = completions.get(i);
              rows.addAll(OutboxWrites.rows(done.lease(), done.messages()));
            }
          }
          outbox.insert(c, rows);
          return committed;
        };
    return jdbc.guarded(
        () -> withMessages ? jdbc.transaction(compareAndSet) : jdbc.run(compareAndSet));
  }

  /** The rare path of a batch: a completion the compare-and-set did not take. */
  private CommitOutcome explainMiss(Lease lease, String result) {
    FencedOutcome.Refused refused = refusals.refusal(lease);
    if (refused instanceof FencedOutcome.AlreadyFinished) {
      try {
        if (refusals.isRepeat(lease, completedWith(result))) {
          return new FencedOutcome.Accepted(lease.key(), lease.epoch(), true);
        }
      } catch (StoreUnavailableException e) {
        if (Text.dataException(e) == null) {
          throw e;
        }
      }
    }
    return refusals.recorded(lease, "complete", refused);
  }

  FencedOutcome.Accepted fail(Lease lease, String error, Duration retryDelay) {
    FencingJob j = FENCING_JOB;
    return failed(
        lease,
        error,
        retryDelay,
        j.ATTEMPTS.ge(j.MAX_ATTEMPTS),
        j.LAST_EVENT.in(inline("failed"), inline("retry")));
  }

  /** A failure that ends the job failed whatever attempts it has left. */
  FencedOutcome.Accepted failFinally(Lease lease, String error) {
    return failed(
        lease, error, Duration.ZERO, trueCondition(), FENCING_JOB.LAST_EVENT.eq(inline("failed")));
  }

  /**
   * The write of a failure: the job ends failed where {@code exhausted} holds, else waits again
   * after {@code retryDelay}; a retry of this very write finds {@code repeatEvent} and its error.
   */
  private FencedOutcome.Accepted failed(
      Lease lease, String error, Duration retryDelay, Condition exhausted, Condition repeatEvent) {
    String kept = Text.storable(error, CommitFrame.MAX_ERROR_LENGTH);
    FencingJob j = FENCING_JOB;
    return giveBack(
        lease,
        lease.epoch().value(),
        nowPlus(retryDelay),
        update ->
            update
                .set(
                    j.STATUS,
                    when(exhausted, inline(JobState.FAILED.dbName()))
                        .otherwise(inline(JobState.PENDING.dbName())))
                .set(j.LAST_ERROR, kept)
                .set(j.LEASE_EXPIRES_AT, (OffsetDateTime) null)
                .set(
                    j.FINISHED_AT,
                    when(exhausted, currentOffsetDateTime()).otherwise((OffsetDateTime) null))
                .set(j.LAST_EVENT, when(exhausted, inline("failed")).otherwise(inline("retry"))),
        () -> repeatEvent.and(j.LAST_ERROR.eq(val(kept))));
  }

  FencedOutcome.Accepted release(Lease lease) {
    Objects.requireNonNull(lease, "lease");
    FencingJob j = FENCING_JOB;
    return giveBack(
        lease,
        -lease.epoch().value(),
        currentOffsetDateTime(),
        update ->
            update
                .set(j.STATUS, inline(JobState.PENDING.dbName()))
                .set(j.ATTEMPTS, j.ATTEMPTS.minus(inline(1)))
                .set(j.LEASE_EXPIRES_AT, (OffsetDateTime) null)
                .set(j.LAST_EVENT, inline("released")),
        () -> j.LAST_EVENT.eq(inline("released")));
  }

  /**
   * A write that gives the job back (fail, release): one compare-and-set that makes {@code sets},
   * stamps the row and leaves {@code settledMark} in its {@code settled_epochs}. The job waits
   * again from {@code ready} on; one with a priority ({@code fencing_job_option}) is parked again
   * in the same statement, so that it keeps its priority.
   */
  private FencedOutcome.Accepted giveBack(
      Lease lease,
      long settledMark,
      Field<OffsetDateTime> ready,
      Function<UpdateSetFirstStep<FencingJobRecord>, UpdateSetMoreStep<FencingJobRecord>> sets,
      Supplier<Condition> sameWriteAgain) {
    FencingJob j = FENCING_JOB;
    FencingJobOption o = FENCING_JOB_OPTION;
    Condition ranked = exists(selectOne().from(o).where(o.JOB_ID.eq(j.ID)));
    CommonTableExpression<Record3<Long, String, String>> given =
        name("given")
            .fields("g_id", "g_queue", "g_status")
            .as(
                sets.apply(update(j))
                    .set(j.RUN_AT, when(ranked, OptionRows.PARKED_RUN_AT).otherwise(ready))
                    .set(j.UPDATED_AT, currentOffsetDateTime())
                    .set(j.SETTLED_EPOCHS, settled(lease, settledMark))
                    .where(owns(lease))
                    .returningResult(j.ID, j.QUEUE, j.STATUS));
    Field<Long> givenId = field(name("g_id"), Long.class);
    CommonTableExpression<Record1<Long>> parked =
        OptionRows.parkedAgain(
            select(givenId, field(name("g_queue"), String.class), o.PRIORITY, ready, o.GRP)
                .from(given)
                .join(o)
                .on(o.JOB_ID.eq(givenId))
                .where(
                    field(name("g_status"), String.class).eq(inline(JobState.PENDING.dbName()))));
    return commit(
        lease,
        () ->
            jdbc.run(
                c ->
                    jdbc.on(c)
                        .with(given)
                        .with(parked)
                        .selectCount()
                        .from(given)
                        .fetchOne(0, int.class)),
        sameWriteAgain,
        settledMark);
  }

  /**
   * The compare-and-set: the lease's owner and epoch, on a running job whose lease has not expired.
   */
  private static Condition owns(Lease lease) {
    return LeaseSql.owns(val(lease.jobId()), val(lease.owner()), val(lease.epoch().value()));
  }

  private FencedOutcome.Accepted commit(
      Lease lease, Supplier<Integer> compareAndSet, Supplier<Condition> sameWriteAgain) {
    return commit(lease, compareAndSet, sameWriteAgain, null);
  }

  /**
   * @param settledMark for a write that gives the job back (fail: +epoch, release: -epoch), the
   *     mark it leaves in {@code settled_epochs}: when the job has been claimed again since, that
   *     mark alone tells that this very write landed
   */
  private FencedOutcome.Accepted commit(
      Lease lease,
      Supplier<Integer> compareAndSet,
      Supplier<Condition> sameWriteAgain,
      @Nullable Long settledMark) {
    int updated = jdbc.guarded(compareAndSet);
    if (updated == 1) {
      return new FencedOutcome.Accepted(lease.key(), lease.epoch(), false);
    }
    FencedOutcome.Refused refused = refusals.refusal(lease);
    if (refused instanceof FencedOutcome.AlreadyFinished
        && refusals.isRepeat(lease, sameWriteAgain.get())) {
      return new FencedOutcome.Accepted(lease.key(), lease.epoch(), true);
    }
    if (refused instanceof FencedOutcome.Superseded
        && settledMark != null
        && refusals.wasSettled(lease, settledMark)) {
      return new FencedOutcome.Accepted(lease.key(), lease.epoch(), true);
    }
    // the settled mark tells a fail (+epoch) from a release (-epoch); a complete leaves none
    String action = settledMark == null ? "complete" : settledMark > 0 ? "fail" : "release";
    throw new FencedOffException(refusals.recorded(lease, action, refused));
  }

  /** {@code settled_epochs} with {@code mark} added, keeping the marks of the last 16 epochs. */
  private static Field<Long[]> settled(Lease lease, long mark) {
    long oldest = lease.epoch().value() - SETTLED_EPOCHS_KEPT;
    return arrayFilter(
        arrayAppend(FENCING_JOB.SETTLED_EPOCHS, val(mark)), e -> abs(e).gt(val(oldest)));
  }

  /** {@code now()} of the database plus {@code duration}, to the microsecond. */
  private static Field<OffsetDateTime> nowPlus(Duration duration) {
    return LeaseSql.nowPlusMicros(val(duration.toNanos() / 1_000));
  }

  private static Condition completedWith(String result) {
    return FENCING_JOB
        .LAST_EVENT
        .eq(inline("completed"))
        .and(FENCING_JOB.RESULT.eq(JSONB.valueOf(result)));
  }

  /** The single-job compare-and-set of {@code complete}. */
  private static Query completeQuery(DSLContext dsl, RenderedSql.Parameters parameters) {
    FencingJob j = FENCING_JOB;
    return dsl.update(j)
        .set(j.STATUS, inline(JobState.COMPLETED.dbName()))
        .set(j.RESULT, field("cast({0} as jsonb)", SQLDataType.JSONB, parameters.varchar("result")))
        .set(j.LEASE_EXPIRES_AT, field("null", SQLDataType.TIMESTAMPWITHTIMEZONE(6)))
        .set(j.FINISHED_AT, currentOffsetDateTime())
        .set(j.LAST_EVENT, inline("completed"))
        .set(j.UPDATED_AT, currentOffsetDateTime())
        .where(j.ID.eq(parameters.bigint("id")))
        .and(j.OWNER.eq(parameters.varchar("owner")))
        .and(j.EPOCH.eq(parameters.bigint("epoch")))
        .and(j.STATUS.eq(inline(JobState.RUNNING.dbName())))
        .and(j.LEASE_EXPIRES_AT.gt(currentOffsetDateTime()));
  }

  /**
   * The batched compare-and-set: each row must still be owned by its lease; the ordinality of the
   * lease in the batch comes back, so each item gets its own truth.
   */
  private static Query completeAllQuery(DSLContext dsl, RenderedSql.Parameters parameters) {
    FencingJob j = FENCING_JOB;
    Table<?> v = LeaseArrays.unnest(parameters, Map.of("result", parameters.texts("results")));
    // Unqualified, uniquely named columns: the render mapping would qualify "v" with the schema.
    Field<String> vResult = field(name("v_result"), String.class);
    return dsl.update(j)
        .set(j.STATUS, inline(JobState.COMPLETED.dbName()))
        .set(j.RESULT, field("cast({0} as jsonb)", SQLDataType.JSONB, vResult))
        .set(j.LEASE_EXPIRES_AT, field("null", SQLDataType.TIMESTAMPWITHTIMEZONE(6)))
        .set(j.FINISHED_AT, currentOffsetDateTime())
        .set(j.LAST_EVENT, inline("completed"))
        .set(j.UPDATED_AT, currentOffsetDateTime())
        .from(v)
        .where(LeaseSql.ownsEach())
        .returning(field(name("v_ord"), Long.class));
  }
}
