package dev.fencing.postgres.internal;

import static dev.fencing.postgres.internal.jooq.Tables.FENCING_JOB_OPTION;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_OUTBOX;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_RESOURCE;
import static org.jooq.impl.DSL.count;
import static org.jooq.impl.DSL.currentOffsetDateTime;
import static org.jooq.impl.DSL.min;

import dev.fencing.JobSnapshot;
import dev.fencing.internal.Validate;
import dev.fencing.postgres.AdminChange;
import dev.fencing.postgres.EpochOwner;
import dev.fencing.postgres.JobDetails;
import dev.fencing.postgres.JobOptionsView;
import dev.fencing.postgres.JobPage;
import dev.fencing.postgres.JobRow;
import dev.fencing.postgres.JobSearch;
import dev.fencing.postgres.OutboxBacklog;
import dev.fencing.postgres.OutboxEntry;
import dev.fencing.postgres.OwnershipRow;
import dev.fencing.postgres.QueueActivity;
import dev.fencing.postgres.internal.jooq.tables.FencingJobOption;
import dev.fencing.postgres.internal.jooq.tables.FencingOutbox;
import dev.fencing.postgres.internal.jooq.tables.FencingResource;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Record;
import org.jooq.Record1;
import org.jooq.ResultQuery;
import org.jooq.Select;
import org.jooq.Table;
import org.jooq.TableField;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;
import org.jspecify.annotations.Nullable;

/**
 * What both engines' operators' views ({@code inplace.InPlaceAdmin}, {@code append.AppendAdmin}) do
 * alike: the schema they read, the install check on the engine's tables, purges through {@link
 * Retention}, a job's details from its {@link JobSnapshot}, and the outcome of a change told from
 * the job as it stands after it.
 */
public abstract class EngineAdmin implements Admin {

  /**
   * How a schema shows it holds the engine's tables, as {@link AdminSupport#checkInstalled} reads
   * it.
   *
   * @param names a query of names (one column, the schema bound as its one parameter)
   * @param required the name among them that a schema of this version has
   * @param older what an older schema lacks, as the message says it
   */
  public record InstallCheck(String names, String required, String older) {}

  private final Jdbc jdbc;
  private final Config config;
  private final Retention retention;
  private final InstallCheck installed;

  protected EngineAdmin(Jdbc jdbc, Config config, Retention retention, InstallCheck installed) {
    this.jdbc = jdbc;
    this.config = config;
    this.retention = retention;
    this.installed = installed;
  }

  /** A read: one statement on a connection of its own, retried after a transient failure. */
  protected final <T> T read(Function<DSLContext, T> read) {
    return jdbc.read(read);
  }

  /**
   * A change: {@code change}'s statements in one transaction, not retried as a whole (a retry after
   * a lost acknowledgement would see its own change and call it a refusal; the operator reads the
   * job again to know).
   */
  protected final <T> T transaction(Function<DSLContext, T> change) {
    return jdbc.transaction(c -> change.apply(jdbc.on(c)));
  }

  /**
   * A change that is safe to run again: {@code change}'s statements in one transaction, retried
   * after a transient failure. Only for a change whose retry tells its own earlier try for what it
   * is (a cancel's repeat).
   */
  protected final <T> T retriedTransaction(Function<DSLContext, T> change) {
    return jdbc.transactionRetried(c -> change.apply(jdbc.on(c)));
  }

  @Override
  public final String schema() {
    return config.schema();
  }

  @Override
  public final void checkInstalled() {
    AdminSupport.checkInstalled(
        jdbc, config.schema(), installed.names(), installed.required(), installed.older());
  }

  @Override
  public final long purge(Duration olderThan, @Nullable String queue, int batchSize) {
    return retention.purge(olderThan, queue, batchSize);
  }

  /** The outcome of a change of a job that does not exist. */
  protected final AdminChange notFound(long jobId) {
    return new AdminChange.NotFound(jobId, config.schema());
  }

  /**
   * The outcome of a change that was {@code made}, or refused (in {@code refusal}'s words), told
   * with the job as it stands after it.
   */
  protected static AdminChange outcome(JobDetails now, boolean made, String refusal) {
    if (made) {
      return new AdminChange.Changed(now);
    }
    return new AdminChange.Refused(
        now.id(), now.state(), "job " + now.id() + " is " + now.state().dbName() + "; " + refusal);
  }

  /** The details of a job as it stands ({@code job}), with what only the operators' view shows. */
  protected static JobDetails details(
      JobSnapshot job,
      int expiries,
      String lastEvent,
      List<Long> settledEpochs,
      Instant createdAt,
      Instant updatedAt,
      @Nullable Instant finishedAt,
      List<EpochOwner> history,
      List<OutboxEntry> messages) {
    return new JobDetails(
        job.id(),
        job.queue(),
        job.state(),
        job.owner(),
        job.epoch(),
        job.attempts(),
        job.maxAttempts(),
        expiries,
        job.lastError(),
        lastEvent,
        settledEpochs,
        createdAt,
        updatedAt,
        job.runAt(),
        job.leaseExpiresAt(),
        finishedAt,
        job.payload(),
        job.result(),
        history,
        messages);
  }

  /** The most resources {@link #ownerships} lists. */
  public static final int MAX_OWNERSHIPS = 1000;

  /**
   * The resources by name, from the primary key's order; valid on the database clock.
   *
   * @throws IllegalArgumentException if {@code limit} is not between 1 and {@value #MAX_OWNERSHIPS}
   */
  @Override
  public final List<OwnershipRow> ownerships(int limit) {
    Validate.between("limit", limit, 1, MAX_OWNERSHIPS);
    FencingResource r = FENCING_RESOURCE;
    var valid = DSL.field(r.LEASE_EXPIRES_AT.gt(currentOffsetDateTime()));
    return read(
        dsl ->
            dsl.select(r.NAME, r.OWNER, r.EPOCH, r.LEASE_EXPIRES_AT, valid)
                .from(r)
                .orderBy(r.NAME)
                .limit(limit)
                .fetch(
                    row ->
                        new OwnershipRow(
                            row.value1(),
                            row.value2(),
                            row.value3(),
                            AdminSupport.instant(row.value4()),
                            Boolean.TRUE.equals(row.value5()))));
  }

  /** Counted from the partial index of undelivered messages, whose ids grow with their age. */
  @Override
  public final OutboxBacklog outboxBacklog() {
    FencingOutbox o = FENCING_OUTBOX;
    return read(
        dsl -> {
          Record row =
              dsl.select(count().cast(SQLDataType.BIGINT), min(o.CREATED_AT))
                  .from(o)
                  .where(o.DELIVERED_AT.isNull())
                  .fetchOne();
          return new OutboxBacklog(
              row.get(0, Long.class), AdminSupport.instant(row.get(1, OffsetDateTime.class)));
        });
  }

  /** How many 5-minute spans {@link QueueActivity#lastHour} has. */
  private static final int SPANS = 12;

  /**
   * The queue's jobs finished in each 5-minute span of the last hour, from {@code finished} (a
   * table with {@code queue}, {@code status} and {@code finished_at}) through its index on {@code
   * finished_at}; {@code finishedOnly} is the condition that index holds.
   */
  private static List<QueueActivity.Bucket> lastHour(
      DSLContext dsl, Table<?> finished, String finishedOnly, String queue) {
    var rows =
        dsl.resultQuery(
                "select now() - interval '1 hour', b.i, b.completed, b.failed from (select 1) one"
                    + " left join (select least(floor(extract(epoch from f.finished_at"
                    + " - (now() - interval '1 hour')) / 300)::int, "
                    + (SPANS - 1)
                    + ") as i, count(*) filter (where f.status = 'completed') as completed,"
                    + " count(*) filter (where f.status = 'failed') as failed from {0} f"
                    + " where f.finished_at > now() - interval '1 hour' and f.finished_at <= now()"
                    + " and "
                    + finishedOnly
                    + " and f.queue = {1} group by 1) b on true",
                finished,
                DSL.val(queue))
            .fetch();
    Instant since = rows.getFirst().get(0, OffsetDateTime.class).toInstant();
    long[][] counts = new long[SPANS][2];
    for (Record row : rows) {
      Integer i = row.get(1, Integer.class);
      if (i != null) {
        counts[i][0] = row.get(2, Long.class);
        counts[i][1] = row.get(3, Long.class);
      }
    }
    List<QueueActivity.Bucket> buckets = new ArrayList<>(SPANS);
    for (int i = 0; i < SPANS; i++) {
      buckets.add(
          new QueueActivity.Bucket(since.plusSeconds(300L * i), counts[i][0], counts[i][1]));
    }
    return buckets;
  }

  /** A job's priority and group, as {@code fencing_job_option} holds them (0 and null if not). */
  protected record Options(int priority, @Nullable String group) {
    public static final Options NONE = new Options(0, null);
  }

  /** The options of the jobs {@code ids} that have any, by job id. */
  protected static Map<Long, Options> options(DSLContext dsl, Collection<Long> ids) {
    FencingJobOption o = FENCING_JOB_OPTION;
    Map<Long, Options> options = new HashMap<>();
    if (!ids.isEmpty()) {
      dsl.select(o.JOB_ID, o.PRIORITY, o.GRP)
          .from(o)
          .where(o.JOB_ID.in(ids))
          .forEach(r -> options.put(r.value1(), new Options(r.value2(), r.value3())));
    }
    return options;
  }

  /**
   * The options of job {@code jobId} of the engine's job table (its {@code id} and {@code key}
   * columns), if there is such a job: defaults when it has no options row.
   */
  protected final Optional<JobOptionsView> options(
      long jobId, TableField<?, Long> id, TableField<?, String> key) {
    Validate.jobId(jobId);
    return read(
        dsl ->
            dsl.select(key)
                .from(id.getTable())
                .where(id.eq(jobId))
                .fetchOptional()
                .map(
                    r -> {
                      Options o = options(dsl, List.of(jobId)).getOrDefault(jobId, Options.NONE);
                      return new JobOptionsView(o.priority(), o.group(), r.value1());
                    }));
  }

  /**
   * The queue's activity: {@code oldestPending} (one timestamp, null when nothing is pending) and
   * {@link #lastHour}.
   */
  protected static QueueActivity activity(
      DSLContext dsl,
      String queue,
      ResultQuery<?> oldestPending,
      Table<?> finished,
      String finishedOnly) {
    OffsetDateTime oldest = oldestPending.fetchOne(0, OffsetDateTime.class);
    return new QueueActivity(
        queue, AdminSupport.instant(oldest), lastHour(dsl, finished, finishedOnly, queue));
  }

  /**
   * What {@code search} asks of the engine's job table (its {@code queue}, {@code key} and {@code
   * id} columns), its state aside; every value bound.
   */
  protected static Condition matching(
      JobSearch search,
      @Nullable Field<String> queue,
      @Nullable Field<String> key,
      @Nullable Field<Long> id) {
    Condition where = DSL.noCondition();
    if (queue != null && search.queue() != null) {
      where = where.and(queue.eq(search.queue()));
    }
    if (key != null && search.key() != null) {
      where = where.and(key.eq(search.key()));
    }
    if (id != null && search.afterId() != null) {
      where = where.and(id.lt(search.afterId()));
    }
    return where;
  }

  /**
   * The most rows of a state's index that {@link #few} calls few: up to that many, reading them all
   * beats walking the primary key among every other job; beyond, the state is common enough for the
   * walk to meet a page of them soon.
   */
  static final int FEW = 5_000;

  /**
   * Whether {@code from} where {@code where} holds at most {@link #FEW} rows, counted up to one
   * more (an index-only scan of the state's partial index, which the condition names).
   */
  protected static boolean few(DSLContext dsl, Table<?> from, Condition where) {
    return dsl.fetchCount(DSL.selectOne().from(from).where(where).limit(FEW + 1)) <= FEW;
  }

  /**
   * The {@code n} largest of the job ids {@code candidates} selects, read whole first (a
   * materialized CTE): for candidates an index finds (a partial index of one state), whose rows a
   * walk of the primary key would have to look for among every other job.
   */
  protected static List<Long> newest(
      DSLContext dsl, Select<? extends Record1<Long>> candidates, int n) {
    var c = DSL.name("c").fields("id").asMaterialized(candidates);
    Field<Long> id = c.field("id", Long.class);
    return dsl.with(c).select(id).from(c).orderBy(id.desc()).limit(n).fetch(id);
  }

  /**
   * The page of {@code rows}, read with one more than {@code limit}: the extra row only says that
   * more may follow.
   */
  protected static JobPage page(List<JobRow> rows, int limit) {
    if (rows.size() <= limit) {
      return new JobPage(rows, null);
    }
    List<JobRow> page = rows.subList(0, limit);
    return new JobPage(page, page.getLast().id());
  }
}
