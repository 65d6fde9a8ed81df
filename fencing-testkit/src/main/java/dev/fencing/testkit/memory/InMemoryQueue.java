package dev.fencing.testkit.memory;

import dev.fencing.CancelResult;
import dev.fencing.CommitOutcome;
import dev.fencing.Enqueued;
import dev.fencing.FencedOffException;
import dev.fencing.FencedOutbox;
import dev.fencing.FencedOutcome;
import dev.fencing.FencedQueue;
import dev.fencing.Job;
import dev.fencing.JobCodec;
import dev.fencing.JobOptions;
import dev.fencing.JobSnapshot;
import dev.fencing.KeyedJob;
import dev.fencing.Lease;
import dev.fencing.Maintenance;
import dev.fencing.OutboxMessage;
import dev.fencing.QueueDepth;
import dev.fencing.QueueLimits;
import dev.fencing.internal.Batches;
import dev.fencing.internal.Validate;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * A {@link FencedQueue} in this JVM's memory, for unit tests of handlers and of a {@code
 * FencedWorkers} without a database. It keeps every rule of {@link
 * dev.fencing.testkit.contract.FencedQueueContract}, as the PostgreSQL queue does: every claim
 * takes the job's next epoch, every write under a lease is a compare-and-set on owner and epoch (a
 * zombie's late commit is refused, and says why), a repeated write is accepted as a repeat,
 * attempts are counted and a lease run out on the last one ends the job failed, retry delays and
 * leases run on the queue's clock, keyed enqueues find their job, jobs enqueued with {@link
 * JobOptions} wait for their run time and are claimed by priority (then ready time, then id), a
 * queue's running limit ({@link #setLimits}) holds, and commits write outbox messages that {@link
 * #outbox()} relays.
 *
 * <pre>{@code
 * ManualClock clock = ManualClock.startingNow();
 * InMemoryQueue queue = InMemoryQueue.builder().clock(clock).maxAttempts(3).build();
 * long id = queue.enqueue("emails", "{\"to\": \"ada\"}");
 * Job zombie = queue.claim("emails", "w1", Duration.ofSeconds(30)).orElseThrow();
 * clock.advance(Duration.ofSeconds(31));
 * Job healthy = queue.claim("emails", "w2", Duration.ofSeconds(30)).orElseThrow(); // epoch 2
 * queue.complete(zombie.lease(), "{}"); // throws FencedOffException: superseded by epoch 2
 * }</pre>
 *
 * <p><b>Time.</b> Leases, run times and retention are judged on the builder's {@link Builder#clock
 * clock} (the system clock by default), never on the caller's, as PostgreSQL judges them on its
 * own; times are kept to the microsecond, as PostgreSQL keeps them. With a {@link ManualClock} a
 * test runs a lease out by moving the clock, without sleeping. Waiting ({@link #awaitWork}) takes
 * real time whatever the clock.
 *
 * <p><b>JSON.</b> Payloads, results and message payloads are taken and printed back as {@code
 * jsonb} does ({@code {"n":1}} comes back as {@code {"n": 1}}), compared as {@code jsonb} compares
 * them (a keyed enqueue's payload, a repeated commit's result), and what {@code jsonb} refuses is
 * refused with an {@link IllegalArgumentException} naming the parameter. An error a failure records
 * is kept as PostgreSQL keeps it: cut to 4,000 characters, NUL and lone surrogates replaced.
 *
 * <p><b>What memory cannot mean.</b> The store never fails and never loses an acknowledgement: no
 * method throws {@code StoreUnavailableException}, {@code OutcomeUnknownException} or {@code
 * SchemaNotInstalledException} (to test those paths, wrap the queue in a {@link
 * dev.fencing.testkit.fault.ForwardingQueue} that throws them). Nothing outlives the JVM, so a
 * restart test needs the PostgreSQL queue. There is no failover, so epochs carry no generation: a
 * job's claims take 1, 2, 3... Wake-ups are never lost ({@link #signalsWork()} is true unless
 * {@link Builder#notifications} is off); as on PostgreSQL, enqueues, releases and failures without
 * delay signal, a lease that runs out or a retry that falls due does not. Claims read the queue's
 * unfinished jobs one by one: made for tests, not for millions of jobs.
 *
 * <p>Thread-safe: one lock is held around the reads and writes of each enqueue, claim, write under
 * a lease and read, so each is atomic as a statement is ({@code completeAll} and {@code renewAll}
 * take their items one at a time); {@link #awaitWork} waits, and the outbox's sender sends, without
 * it.
 *
 * @since 0.1
 */
public final class InMemoryQueue implements FencedQueue {

  /** The longest error a failed job keeps, as on PostgreSQL; a longer one is cut. */
  public static final int MAX_ERROR_LENGTH = 4_000;

  private final Clock clock;
  private final boolean notifications;
  private final MemoryStore store;
  private final Signals signals = new Signals();
  private final JobCodec codec;

  private InMemoryQueue(Builder b) {
    this.codec = b.codec;
    this.clock = b.clock;
    this.notifications = b.notifications;
    this.store = new MemoryStore(b.clock, b.maxAttempts);
  }

  /** Returns a builder of an empty queue: the system clock, 5 attempts a job, notifications on. */
  public static Builder builder() {
    return new Builder();
  }

  /** Returns the codec of the typed methods ({@link Builder#codec}). */
  @Override
  public JobCodec codec() {
    return codec;
  }

  @Override
  public long enqueue(String queue, String payload) {
    Validate.json("payload", payload);
    Validate.identifier("queue", queue);
    Jsonb.Value value = Jsonb.parse("payload", payload);
    return signalled(queue, store.add(queue, List.of(value), JobOptions.DEFAULT)).getFirst();
  }

  @Override
  public List<Long> enqueueAll(String queue, List<String> payloads) {
    return enqueueAll(queue, payloads, JobOptions.DEFAULT);
  }

  @Override
  public long enqueue(String queue, String payload, JobOptions options) {
    Validate.json("payload", payload);
    return enqueueAll(queue, List.of(payload), options).getFirst();
  }

  @Override
  public List<Long> enqueueAll(String queue, List<String> payloads, JobOptions options) {
    Batches.payloads(payloads);
    if (options == null) {
      throw new IllegalArgumentException("options must not be null; use JobOptions.DEFAULT");
    }
    Validate.identifier("queue", queue);
    List<Jsonb.Value> values = new ArrayList<>(payloads.size());
    for (int i = 0; i < payloads.size(); i++) {
      values.add(Jsonb.parse("payloads[" + i + "]", payloads.get(i)));
    }
    return values.isEmpty() ? List.of() : signalled(queue, store.add(queue, values, options));
  }

  /**
   * Adds the jobs whose keys the queue does not hold, all or none; new jobs are numbered in the
   * order of their keys, as on PostgreSQL. A key is held until {@link #maintenance} removes its
   * job.
   */
  @Override
  public List<Enqueued> enqueueKeyed(String queue, List<KeyedJob> jobs) {
    Validate.identifier("queue", queue);
    Batches.keyedJobs(jobs);
    List<Jsonb.Value> values = new ArrayList<>(jobs.size());
    for (int i = 0; i < jobs.size(); i++) {
      values.add(Jsonb.parse("jobs[" + i + "].payload", jobs.get(i).payload()));
    }
    List<Enqueued> outcomes = jobs.isEmpty() ? List.of() : store.addKeyed(queue, jobs, values);
    if (outcomes.stream().anyMatch(Enqueued::created)) {
      signal(queue);
    }
    return outcomes;
  }

  @Override
  public List<Job> claimBatch(String queue, String owner, Duration leaseLength, int batchSize) {
    Validate.claim(queue, owner, leaseLength, batchSize);
    return store.claim(queue, owner, leaseLength, batchSize);
  }

  @Override
  public QueueLimits limits(String queue) {
    Validate.identifier("queue", queue);
    return store.limits(queue);
  }

  /**
   * Sets the queue's limits, kept as long as this queue lives. A running limit counts the queue's
   * running jobs whose leases have not run out on the queue's clock, as the PostgreSQL queue counts
   * them on the database's: a takeover counts as any claim, a zombie whose lease ran out does not.
   */
  @Override
  public QueueLimits setLimits(String queue, QueueLimits limits) {
    Validate.identifier("queue", queue);
    if (limits == null) {
      throw new IllegalArgumentException("limits must not be null; use QueueLimits.NONE");
    }
    return store.setLimits(queue, limits);
  }

  @Override
  public long waitingForLimits(String queue) {
    Validate.identifier("queue", queue);
    return store.waitingForLimits(queue);
  }

  @Override
  public Lease renew(Lease lease, Duration leaseLength) {
    Objects.requireNonNull(lease, "lease");
    Validate.leaseLength(leaseLength);
    return store.renew(lease, leaseLength);
  }

  @Override
  public FencedOutcome.Accepted complete(Lease lease, String result) {
    return complete(lease, result, List.of());
  }

  @Override
  public FencedOutcome.Accepted complete(Lease lease, String result, List<OutboxMessage> messages) {
    Objects.requireNonNull(lease, "lease");
    Jsonb.Value value = Jsonb.parse("result", result);
    List<OutboxMessage> written = printed("", Batches.messages("messages", messages));
    return FencedOffException.requireAccepted(store.complete(lease, value, written));
  }

  /**
   * Commits each completion as {@link #complete(Lease, String, List)} would; a result or payload
   * {@code jsonb} refuses fails its item alone, named {@code completions[i].result} or {@code
   * completions[i].messages[k].payload}.
   */
  @Override
  public List<CommitOutcome> completeAll(List<Completion> completions) {
    Objects.requireNonNull(completions, "completions");
    List<CommitOutcome> outcomes = new ArrayList<>(completions.size());
    for (int i = 0; i < completions.size(); i++) {
      Completion c = Objects.requireNonNull(completions.get(i), "completions[" + i + "]");
      String name = "completions[" + i + "].";
      Jsonb.Value result;
      List<OutboxMessage> written;
      try {
        result = Jsonb.parse(name + "result", c.result());
        written = printed(name, c.messages());
      } catch (IllegalArgumentException e) {
        outcomes.add(new CommitOutcome.Invalid(c.lease().key(), c.lease().epoch(), e));
        continue;
      }
      outcomes.add(store.complete(c.lease(), result, written));
    }
    return List.copyOf(outcomes);
  }

  /** The messages with their payloads as {@code jsonb} prints them, named with {@code prefix}. */
  private static List<OutboxMessage> printed(String prefix, List<OutboxMessage> messages) {
    List<OutboxMessage> out = new ArrayList<>(messages.size());
    for (int k = 0; k < messages.size(); k++) {
      OutboxMessage m = messages.get(k);
      String payload = Jsonb.parse(prefix + "messages[" + k + "].payload", m.payload()).text();
      out.add(new OutboxMessage(m.destination(), m.key(), payload));
    }
    return out;
  }

  @Override
  public FencedOutcome.Accepted fail(Lease lease, String error, Duration retryDelay) {
    Batches.failure(lease, error, retryDelay);
    FencedOutcome outcome = store.fail(lease, storable(error), retryDelay);
    if (retryDelay.isZero()) {
      returned(lease);
    }
    return FencedOffException.requireAccepted(outcome);
  }

  @Override
  public FencedOutcome.Accepted failFinally(Lease lease, String error) {
    Batches.finalFailure(lease, error);
    return FencedOffException.requireAccepted(store.failFinally(lease, storable(error)));
  }

  @Override
  public FencedOutcome.Accepted release(Lease lease) {
    Objects.requireNonNull(lease, "lease");
    FencedOutcome outcome = store.release(lease);
    returned(lease);
    return FencedOffException.requireAccepted(outcome);
  }

  /** Signals the job's queue if a fail or release made it claimable. */
  private void returned(Lease lease) {
    String queue = store.claimableIn(lease.jobId());
    if (queue != null) {
      signal(queue);
    }
  }

  /**
   * Cancels the job as the PostgreSQL queue does: the reason is kept cut to {@value
   * Validate#MAX_CANCEL_REASON} characters, the fence epoch is the job's epoch plus one.
   */
  @Override
  public CancelResult cancel(long jobId, @Nullable String reason) {
    Validate.jobId(jobId);
    String error = storable(Validate.cancelled(reason));
    return store.cancel(jobId, reason == null ? null : storable(reason), error);
  }

  @Override
  public Optional<JobSnapshot> find(long jobId) {
    Validate.jobId(jobId);
    return store.find(jobId);
  }

  /** Waits for a signal of new work on {@code queue}; with notifications off, sleeps. */
  @Override
  public boolean awaitWork(String queue, Duration timeout) throws InterruptedException {
    Validate.identifier("queue", queue);
    Validate.delay("timeout", timeout);
    if (!notifications) {
      Thread.sleep(timeout);
      return false;
    }
    return signals.await(queue, timeout);
  }

  @Override
  public boolean signalsWork() {
    return notifications;
  }

  @Override
  public QueueDepth depth(String queue) {
    Validate.identifier("queue", queue);
    return store.depth(queue);
  }

  /**
   * Returns the relay of the messages this queue's commits wrote: each message at least once,
   * oldest first, at the epoch of the commit that wrote it.
   */
  public FencedOutbox outbox() {
    return store.outbox;
  }

  /**
   * Returns the retention of this queue: each round removes at most {@code batchSize} completed or
   * failed jobs that finished more than {@code keepFinished} ago on the queue's clock, oldest
   * first, with their delivered messages, and forgets their keys; a job with an undelivered message
   * is kept. A write under a removed job's lease is refused as {@link FencedOutcome.Removed}.
   *
   * @param keepFinished between 1 min and 3650 days
   * @param batchSize between 1 and 10,000
   * @throws IllegalArgumentException naming a bad parameter and its value
   */
  public Maintenance maintenance(Duration keepFinished, int batchSize) {
    Validate.keepFinished("keepFinished", keepFinished);
    Validate.batchSize(batchSize);
    return () -> store.removeFinished(keepFinished, batchSize);
  }

  @Override
  public String toString() {
    return "in-memory queue (" + store.size() + " jobs, " + clock + ")";
  }

  private List<Long> signalled(String queue, List<Long> ids) {
    signal(queue);
    return ids;
  }

  private void signal(String queue) {
    if (notifications) {
      signals.signal(queue);
    }
  }

  /**
   * {@code error} as PostgreSQL text keeps it: NUL and lone surrogates replaced by U+FFFD, cut to
   * {@value #MAX_ERROR_LENGTH} characters without splitting a surrogate pair.
   */
  static String storable(String error) {
    StringBuilder out = new StringBuilder(Math.min(error.length(), MAX_ERROR_LENGTH));
    for (int i = 0; i < error.length() && out.length() < MAX_ERROR_LENGTH; i++) {
      char c = error.charAt(i);
      boolean pair =
          Character.isHighSurrogate(c)
              && i + 1 < error.length()
              && Character.isLowSurrogate(error.charAt(i + 1));
      if (pair) {
        if (out.length() + 2 > MAX_ERROR_LENGTH) {
          break;
        }
        out.append(c).append(error.charAt(++i));
      } else {
        out.append(c == '\u0000' || Character.isSurrogate(c) ? '\uFFFD' : c);
      }
    }
    return out.toString();
  }

  /** Configures an {@link InMemoryQueue}; {@link #build()} checks every setting. */
  public static final class Builder {
    private Clock clock = Clock.systemUTC();
    private int maxAttempts = 5;
    private boolean notifications = true;
    private JobCodec codec = JobCodec.discover();

    private Builder() {}

    /**
     * The codec the typed {@code enqueue} and {@code result} methods use; default {@link
     * JobCodec#discover()}.
     *
     * @since 0.1
     */
    public Builder codec(JobCodec codec) {
      this.codec = Objects.requireNonNull(codec, "codec");
      return this;
    }

    /**
     * The clock that leases, run times and retention are judged on; default the system clock. A
     * {@link ManualClock} lets a test move time.
     */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /** How many claims a job gets before a failure is terminal, 1 to 1,000; default 5. */
    public Builder maxAttempts(int maxAttempts) {
      this.maxAttempts = maxAttempts;
      return this;
    }

    /**
     * Whether enqueues, releases and failures without delay wake {@link #awaitWork} waiters;
     * default true. Off, {@code awaitWork} sleeps its timeout and {@code signalsWork()} is false,
     * as the PostgreSQL queue with notifications off.
     */
    public Builder notifications(boolean notifications) {
      this.notifications = notifications;
      return this;
    }

    /**
     * Returns a new, empty queue.
     *
     * @throws IllegalArgumentException naming the first setting out of range
     */
    public InMemoryQueue build() {
      Validate.maxAttempts(maxAttempts);
      return new InMemoryQueue(this);
    }
  }
}
