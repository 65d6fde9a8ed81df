package dev.fencing.postgres.internal;

import static dev.fencing.postgres.internal.jooq.Tables.FENCING_OUTBOX;
import static dev.fencing.postgres.internal.jooq.Tables.FENCING_RESOURCE;
import static org.jooq.impl.DSL.count;
import static org.jooq.impl.DSL.currentOffsetDateTime;
import static org.jooq.impl.DSL.min;

import dev.fencing.JobSnapshot;
import dev.fencing.internal.Validate;
import dev.fencing.postgres.admin.AdminChange;
import dev.fencing.postgres.admin.JobDetails;
import dev.fencing.postgres.admin.JobHistory;
import dev.fencing.postgres.admin.JobOptionsView;
import dev.fencing.postgres.admin.JobPage;
import dev.fencing.postgres.admin.JobSearch;
import dev.fencing.postgres.admin.OutboxBacklog;
import dev.fencing.postgres.admin.OwnershipRow;
import dev.fencing.postgres.admin.QueueActivity;
import dev.fencing.postgres.internal.jooq.tables.FencingOutbox;
import dev.fencing.postgres.internal.jooq.tables.FencingResource;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import org.jooq.DSLContext;
import org.jooq.Record;
import org.jooq.TableField;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;
import org.jspecify.annotations.Nullable;

/**
 * What both engines' operators' views ({@code inplace.InPlaceAdmin}, {@code append.AppendAdmin}) do
 * alike: the schema they read, the install check on the engine's tables, purges through {@link
 * Retention}, the reads of the engine's {@link EngineReads} with their arguments checked, and the
 * outcome of a change told from the job as it stands after it.
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
  private final EngineReads reads;

  protected EngineAdmin(
      Jdbc jdbc, Config config, Retention retention, InstallCheck installed, EngineReads reads) {
    this.jdbc = jdbc;
    this.config = config;
    this.retention = retention;
    this.installed = installed;
    this.reads = reads;
  }

  /** The job as it stands, with what only the operators' view shows, if there is such a job. */
  protected abstract Optional<JobDetails> details(DSLContext dsl, long jobId);

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
  public final Optional<JobDetails> job(long jobId) {
    Validate.jobId(jobId);
    return read(dsl -> details(dsl, jobId));
  }

  @Override
  public final Optional<JobHistory> history(long jobId) {
    Validate.jobId(jobId);
    return read(dsl -> reads.history(dsl, jobId));
  }

  @Override
  public final JobPage jobs(JobSearch search) {
    Objects.requireNonNull(search, "search");
    return read(dsl -> reads.jobs(dsl, search));
  }

  @Override
  public final QueueActivity activity(String queue) {
    Validate.identifier("queue", queue);
    return read(dsl -> reads.activity(dsl, queue));
  }

  @Override
  public final List<QueueActivity> activities(Collection<String> queues) {
    List<String> names = List.copyOf(queues);
    names.forEach(q -> Validate.identifier("queues", q));
    return read(dsl -> reads.activities(dsl, names));
  }

  @Override
  public final long purge(Duration olderThan, @Nullable String queue) {
    return purge(olderThan, queue, PURGE_BATCH);
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
    JobSnapshot job = now.job();
    return new AdminChange.Refused(
        job.id(), job.state(), "job " + job.id() + " is " + job.state().dbName() + "; " + refusal);
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
                      AdminReads.Options o =
                          AdminReads.options(dsl, List.of(jobId))
                              .getOrDefault(jobId, AdminReads.Options.NONE);
                      return new JobOptionsView(o.priority(), o.group(), r.value1());
                    }));
  }
}
