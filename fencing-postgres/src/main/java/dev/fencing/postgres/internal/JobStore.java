package dev.fencing.postgres.internal;

import dev.fencing.CommitOutcome;
import dev.fencing.FencedOutcome;
import dev.fencing.Job;
import dev.fencing.JobConsumer.Completion;
import dev.fencing.JobSnapshot;
import dev.fencing.Lease;
import dev.fencing.OutboxMessage;
import dev.fencing.QueueDepth;
import dev.fencing.Renewal;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.InsertOnDuplicateStep;
import org.jooq.JSONB;
import org.jooq.QueryPart;
import org.jooq.Table;
import org.jspecify.annotations.Nullable;

/**
 * The seam between the two storage engines (docs/ENGINE.md): everything that differs between them,
 * with one implementation per engine in a package of its own, {@code internal.inplace.InPlaceStore}
 * (one row per job, updated in place) and {@code internal.append.AppendStore} (rows inserted, never
 * updated). {@code PostgresModule} binds the one the configuration names, and is the only place
 * that asks which. What both engines share is written once against this interface: enqueueing and
 * the wake-ups ({@link PostgresQueue}), keyed enqueues ({@link KeyedEnqueues}), a schedule's slots
 * ({@link SlotStatement}), retention's batches and VACUUM ({@link Retention}), the outbox. Both
 * implementations extend {@link EngineStore}, what they do alike.
 *
 * <p>The queue's calls arrive here with their queue, owner, lease length, batch size and job id
 * already checked; every other argument is checked by the engine, as {@link
 * dev.fencing.FencedQueue} says.
 */
public interface JobStore {

  /** The table an enqueue inserts jobs into, and the columns it writes. */
  JobTable jobs();

  /**
   * The rows besides the job's that jobs enqueued with options need on this engine (schema V2), as
   * data-modifying CTEs of {@link OptionRows}' statement, which reads the jobs and their options
   * from {@code o(id, pr, ready)}: {@code name as (statement), ...}. See docs/ENGINE.md, "Run later
   * and priorities".
   *
   * @param queue the jobs' queue
   */
  QueryPart optionRows(Field<String> queue);

  /**
   * The job table's run time column, which an enqueue with options sets ({@link
   * OptionRows#PARKED_RUN_AT} for a job that waits in {@code fencing_parked}), or null when the
   * engine keeps a job's run time elsewhere.
   */
  @Nullable Field<OffsetDateTime> runAt();

  /**
   * Claims up to {@code batchSize} jobs of {@code queue}, by priority, then ready time, then id,
   * one epoch each.
   */
  List<Job> claimBatch(String queue, String owner, Duration leaseLength, int batchSize);

  /** See {@link dev.fencing.FencedQueue#renew}. */
  Lease renew(Lease lease, Duration leaseLength);

  /** See {@link dev.fencing.FencedQueue#renewAll}. */
  List<Renewal> renewAll(List<Lease> leases, Duration leaseLength);

  /** See {@link dev.fencing.FencedQueue#complete(Lease, String, List)}. */
  FencedOutcome.Accepted complete(Lease lease, String result, List<OutboxMessage> messages);

  /** See {@link dev.fencing.FencedQueue#completeAll}. */
  List<CommitOutcome> completeAll(List<Completion> completions);

  /** See {@link dev.fencing.FencedQueue#fail}; a job given back now wakes the queue's waiters. */
  FencedOutcome.Accepted fail(Lease lease, String error, Duration retryDelay);

  /** See {@link dev.fencing.FencedQueue#failFinally}; the job ends failed, so nobody is woken. */
  FencedOutcome.Accepted failFinally(Lease lease, String error);

  /** See {@link dev.fencing.FencedQueue#release}; the job given back wakes the queue's waiters. */
  FencedOutcome.Accepted release(Lease lease);

  /** The job with that id as it stands, if there is one. */
  Optional<JobSnapshot> find(long jobId);

  /** The pending, running and failed counts of {@code queue}, in one statement. */
  QueueDepth depth(String queue);

  /** The engine's tests of a limit's slots ({@link RunningLimits}). */
  SlotTests slotTests();

  /**
   * Retention's selection: removes (or archives, then removes) up to {@code batchSize} finished
   * jobs older than {@code olderThan} (of {@code queue}, or of every queue when null) in the
   * transaction {@code dsl} runs in, oldest first, rows locked {@code SKIP LOCKED}, keeping any job
   * with an undelivered outbox message; the archive rows are written with {@link
   * Retention#archive}.
   */
  RetentionBatch removeFinished(
      DSLContext dsl, Duration olderThan, @Nullable String queue, int batchSize, boolean archive);

  /** The engine's tables that maintenance vacuums, besides {@code fencing_outbox}. */
  List<String> vacuumed();

  /** The operators' view of the engine's tables. */
  Admin admin();

  /**
   * The job table of an engine, and its columns that an enqueue writes: the same for a plain and a
   * keyed enqueue and a schedule's slots.
   *
   * @param table the table
   * @param id the job's id, from the table's sequence
   * @param queue the queue
   * @param payload the payload
   * @param maxAttempts the claims the job gets
   * @param key the idempotency key, unique per queue where not null
   * @param token the enqueueing call's token, which tells a retry what its lost try wrote
   * @param stamps the columns the engine writes besides those (none, or the enqueueing
   *     transaction's id on the append-only engine)
   * @param stampValues what each of {@code stamps} is set to, in the same order
   */
  record JobTable(
      Table<?> table,
      Field<Long> id,
      Field<String> queue,
      Field<JSONB> payload,
      Field<Integer> maxAttempts,
      Field<String> key,
      Field<UUID> token,
      List<Field<?>> stamps,
      List<Field<?>> stampValues) {

    /** The columns an enqueue writes: {@code given}, then the engine's {@code stamps}. */
    public List<Field<?>> columns(Field<?>... given) {
      List<Field<?>> columns = new ArrayList<>(List.of(given));
      columns.addAll(stamps);
      return columns;
    }

    /** What an enqueue writes to its {@link #columns}: {@code given}, then {@code stampValues}. */
    public List<Field<?>> values(Field<?>... given) {
      List<Field<?>> values = new ArrayList<>(List.of(given));
      values.addAll(stampValues);
      return values;
    }

    /**
     * Runs a keyed enqueue's {@code insert} into the table: a key the queue already holds adds no
     * job. Returns the ids of the jobs inserted, by key.
     */
    public Map<String, Long> insertNew(InsertOnDuplicateStep<?> insert) {
      Map<String, Long> ids = new HashMap<>();
      insert
          .onConflict(queue, key)
          .where(key.isNotNull())
          .doNothing()
          .returning(id, key)
          .fetch()
          .forEach(r -> ids.put(r.get(key), r.get(id)));
      return ids;
    }
  }
}
