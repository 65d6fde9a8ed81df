package dev.fencing.postgres.internal;

import dev.fencing.CancelResult;
import dev.fencing.CommitOutcome;
import dev.fencing.Enqueued;
import dev.fencing.FencedOutcome;
import dev.fencing.FencedQueue;
import dev.fencing.Job;
import dev.fencing.JobOptions;
import dev.fencing.JobSnapshot;
import dev.fencing.KeyedJob;
import dev.fencing.Lease;
import dev.fencing.OutboxMessage;
import dev.fencing.OutcomeUnknownException;
import dev.fencing.QueueDepth;
import dev.fencing.QueueLimits;
import dev.fencing.Renewal;
import dev.fencing.StoreUnavailableException;
import dev.fencing.internal.Batches;
import dev.fencing.internal.Validate;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntFunction;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.JSONB;
import org.jooq.Table;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;
import org.jspecify.annotations.Nullable;

/**
 * The PostgreSQL queue, on either engine: what both share is here, written once against {@link
 * JobStore}: enqueueing (plain and keyed, into the engine's job table), the checks of a claim's
 * arguments, and the signals of new work (see {@link Notifier} and {@link Listener}); the claim,
 * the writes under a lease and the reads are the engine's.
 *
 * <p>Every statement commits on its own, whether or not the data source's connections are in
 * autocommit mode (see {@link Jdbc}).
 */
public final class PostgresQueue implements FencedQueue {

  private static final int ENQUEUE_CHUNK = 10_000;

  private final Jdbc jdbc;
  private final JobStore store;
  private final JsonProbe probe;
  private final KeyedEnqueues keyed;
  private final Notifier notifier;
  private final Listener listener;
  private final RunningLimits limits;

  @Inject
  PostgresQueue(
      Jdbc jdbc,
      JobStore store,
      JsonProbe probe,
      KeyedEnqueues keyed,
      Notifier notifier,
      Listener listener,
      RunningLimits limits) {
    this.limits = limits;
    this.jdbc = jdbc;
    this.store = store;
    this.probe = probe;
    this.keyed = keyed;
    this.notifier = notifier;
    this.listener = listener;
  }

  @Override
  public long enqueue(String queue, String payload) {
    return enqueue(queue, List.of(Validate.json("payload", payload)), i -> "payload").getFirst();
  }

  @Override
  public List<Long> enqueueAll(String queue, List<String> payloads) {
    Batches.payloads(payloads);
    return enqueue(queue, payloads, i -> "payloads[" + i + "]");
  }

  @Override
  public long enqueue(String queue, String payload, JobOptions options) {
    Validate.json("payload", payload);
    return enqueue(queue, List.of(payload), checked(options), i -> "payload").getFirst();
  }

  @Override
  public List<Long> enqueueAll(String queue, List<String> payloads, JobOptions options) {
    Batches.payloads(payloads);
    return enqueue(queue, payloads, checked(options), i -> "payloads[" + i + "]");
  }

  private static JobOptions checked(JobOptions options) {
    if (options == null) {
      throw new IllegalArgumentException("options must not be null; use JobOptions.DEFAULT");
    }
    return options;
  }

  private List<Long> enqueue(String queue, List<String> payloads, IntFunction<String> parameter) {
    return enqueue(queue, payloads, JobOptions.DEFAULT, parameter);
  }

  private List<Long> enqueue(
      String queue, List<String> payloads, JobOptions options, IntFunction<String> parameter) {
    Validate.identifier("queue", queue);
    if (payloads.isEmpty()) {
      return List.of();
    }
    for (int i = 0; i < payloads.size(); i++) {
      Validate.json(parameter.apply(i), payloads.get(i));
      Text.requireSendable(parameter.apply(i), payloads.get(i));
    }
    try {
      return insert(queue, payloads, options);
    } catch (StoreUnavailableException e) {
      throw probe.explain(e, payloads, parameter);
    }
  }

  @Override
  public List<Enqueued> enqueueKeyed(String queue, List<KeyedJob> jobs) {
    return keyed.enqueue(queue, jobs);
  }

  /**
   * Retried only after a failure before the commit (nothing was written then): after a lost
   * acknowledgement, or a cancelled wait for the synchronous standby, a retry could enqueue the
   * jobs twice, so those cases are reported as unknown. Chunks keep each statement under
   * PostgreSQL's 65,535 bind values; one transaction keeps it all or none.
   */
  private List<Long> insert(String queue, List<String> payloads, JobOptions options) {
    boolean one = payloads.size() == 1;
    AtomicReference<RuntimeException> unknown = new AtomicReference<>();
    List<Long> ids =
        jdbc.guarded(
            () -> {
              try {
                return insertOnce(queue, payloads, options);
              } catch (StoreUnavailableException e) {
                RuntimeException lost = StoreFailures.cause(e, OutcomeUnknown.class);
                if (lost == null) {
                  throw e;
                }
                unknown.set(lost); // out of the retry's sight: its cause may look transient
                return null;
              }
            });
    if (ids != null) {
      return ids;
    }
    RuntimeException e = unknown.get();
    throw unknown(
        queue,
        payloads,
        e instanceof CommitOutcomeUnknown
            ? "the connection broke after the commit was sent, so "
                + (one ? "it" : "they (all or none)")
                + " may or may not have been added"
            : "the primary committed, but its wait for the synchronous standby was cancelled, so"
                + " a failover may lose "
                + (one ? "it" : "them (all or none)"),
        e);
  }

  private static OutcomeUnknownException unknown(
      String queue, List<String> payloads, String why, RuntimeException cause) {
    return new OutcomeUnknownException(
        "enqueueing "
            + payloads.size()
            + (payloads.size() == 1 ? " job" : " jobs")
            + " on queue '"
            + queue
            + "': "
            + why
            + ", and a retry may add them twice; enqueue with idempotency keys (KeyedJob) to make"
            + " retries safe",
        cause);
  }

  private List<Long> insertOnce(String queue, List<String> payloads, JobOptions options) {
    return jdbc.transaction(
        c -> {
          List<Long> ids = new ArrayList<>(payloads.size());
          for (int from = 0; from < payloads.size(); from += ENQUEUE_CHUNK) {
            List<String> chunk =
                payloads.subList(from, Math.min(payloads.size(), from + ENQUEUE_CHUNK));
            ids.addAll(
                options.isDefault()
                    ? insert(jdbc.on(c), queue, chunk)
                    : OptionRows.plain(
                            jdbc.on(c),
                            store,
                            queue,
                            jdbc.config().maxAttempts(),
                            chunk,
                            Collections.nCopies(chunk.size(), options))
                        .fetch(0, Long.class));
          }
          // in the same transaction: delivered on commit, once however many jobs were added
          notifier.inTransaction(c, queue);
          return ids;
        });
  }

  /** One chunk's insert into the engine's job table, with the columns the engine stamps. */
  private List<Long> insert(DSLContext d, String queue, List<String> payloads) {
    JobStore.JobTable t = store.jobs();
    List<Field<?>> columns = new ArrayList<>(List.of(t.queue(), t.payload(), t.maxAttempts()));
    columns.addAll(t.stamps());
    List<Field<?>> values =
        new ArrayList<>(List.of(DSL.val(queue), PAYLOAD, DSL.val(jdbc.config().maxAttempts())));
    values.addAll(t.stampValues());
    return d.insertInto(t.table(), columns)
        .select(DSL.select(values).from(payloadsTable(payloads)).orderBy(ORDINALITY))
        .returning(t.id())
        .fetch(t.id());
  }

  /**
   * The payloads as rows {@code (p, n)} of one array parameter: one statement text for every batch
   * size, where a multi-row VALUES was a new text (and a new parse and plan) for each size. Ids
   * follow the payloads' order: rows are inserted, and numbered by the id sequence, in {@code n}'s
   * order.
   */
  private static Table<?> payloadsTable(List<String> payloads) {
    return DSL.table(
        "unnest({0}::text[]) with ordinality as payloads(p, n)",
        DSL.val(payloads.toArray(String[]::new)));
  }

  private static final Field<JSONB> PAYLOAD = DSL.field("payloads.p::jsonb", SQLDataType.JSONB);
  private static final Field<Long> ORDINALITY = DSL.field("payloads.n", SQLDataType.BIGINT);

  @Override
  public List<Job> claimBatch(String queue, String owner, Duration leaseLength, int batchSize) {
    Validate.claim(queue, owner, leaseLength, batchSize);
    return store.claimBatch(queue, owner, leaseLength, batchSize);
  }

  @Override
  public Lease renew(Lease lease, Duration leaseLength) {
    return store.renew(lease, leaseLength);
  }

  @Override
  public List<Renewal> renewAll(List<Lease> leases, Duration leaseLength) {
    return store.renewAll(leases, leaseLength);
  }

  @Override
  public FencedOutcome.Accepted complete(Lease lease, String result) {
    return store.complete(lease, result, List.of());
  }

  @Override
  public FencedOutcome.Accepted complete(Lease lease, String result, List<OutboxMessage> messages) {
    return store.complete(lease, result, messages);
  }

  @Override
  public List<CommitOutcome> completeAll(List<Completion> completions) {
    return store.completeAll(completions);
  }

  @Override
  public FencedOutcome.Accepted fail(Lease lease, String error, Duration retryDelay) {
    Batches.failure(lease, error, retryDelay);
    return store.fail(lease, error, retryDelay);
  }

  @Override
  public FencedOutcome.Accepted failFinally(Lease lease, String error) {
    Batches.finalFailure(lease, error);
    return store.failFinally(lease, error);
  }

  @Override
  public FencedOutcome.Accepted release(Lease lease) {
    return store.release(lease);
  }

  /**
   * Waits for a notification on the queue, heard by this queue's listening connection (see {@link
   * Listener}); with notifications off, sleeps as the default does.
   */
  @Override
  public boolean awaitWork(String queue, Duration timeout) throws InterruptedException {
    Validate.identifier("queue", queue);
    Validate.delay("timeout", timeout);
    if (!notifier.enabled()) {
      Thread.sleep(timeout);
      return false;
    }
    return listener.await(queue, timeout);
  }

  @Override
  public boolean signalsWork() {
    return notifier.enabled();
  }

  /** Cancels through the engine's operators' view, which a cancel shares with a fail. */
  @Override
  public CancelResult cancel(long jobId, @Nullable String reason) {
    Validate.jobId(jobId);
    return store.admin().cancel(jobId, reason);
  }

  @Override
  public QueueLimits limits(String queue) {
    return limits.limits(queue);
  }

  @Override
  public QueueLimits setLimits(String queue, QueueLimits limits) {
    return this.limits.setLimits(queue, limits, store.slotTests());
  }

  @Override
  public Optional<JobSnapshot> find(long jobId) {
    Validate.jobId(jobId);
    return store.find(jobId);
  }

  @Override
  public long waitingForLimits(String queue) {
    RunningLimits.Held held = limits.held(queue, store.slotTests());
    return held.queueFull() ? store.depth(queue).pending() : held.groupHeld();
  }

  @Override
  public QueueDepth depth(String queue) {
    Validate.identifier("queue", queue);
    return store.depth(queue);
  }
}
