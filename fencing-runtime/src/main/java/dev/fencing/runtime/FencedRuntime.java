package dev.fencing.runtime;

import dev.fencing.FencedOutbox;
import dev.fencing.FencedQueue;
import dev.fencing.FencedReceiver;
import dev.fencing.Maintenance;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * The worker runtime: one process's claiming, heartbeats, handler threads, deliveries, batched
 * commits and shutdown, in the order that keeps a zombie harmless.
 *
 * <pre>{@code
 * try (FencedRuntime runtime = FencedRuntime.builder(queue, receiver)
 *     .queue("emails").owner("worker-1").concurrency(8)
 *     .handler((job, cancellation) -> send(job.payload()))
 *     .onOutcome(outcome -> log.info("{}", outcome))
 *     .start()) {
 *   awaitShutdownSignal();
 * }
 * }</pre>
 *
 * <p>The receiver is optional. Without one, a handler's result is committed only; an {@link
 * OutboxHandler} adds outbox messages that the commit writes in its own transaction, so a
 * fenced-off worker writes none, and {@link Builder#relay} sends them from the runtime:
 *
 * <pre>{@code
 * FencedRuntime.builder(queue).queue("emails").owner("worker-1")
 *     .outboxHandler((job, c) -> HandlerResult.of("{}", new OutboxMessage("mail", to(job), email(job))))
 *     .relay(outbox, "mail", envelope -> smtp.send(envelope))
 *     .start();
 * }</pre>
 *
 * <p>A claimer thread claims in batches, only as many jobs as there are free slots ({@code
 * concurrency + prefetch}; a job's slot is free again once its handler is done, so claims go out
 * while the last results are committed). Each job runs on one of {@code concurrency} handler
 * threads (platform threads, or virtual threads with {@link Builder#virtualThreads}); its result is
 * delivered to the receiver, if there is one, with the job's id and epoch, then committed with
 * other results in one compare-and-set statement, together with their outbox messages. A heartbeat
 * renews every {@code heartbeatInterval} (default a third of the lease) each lease in flight taken
 * or last renewed more than half an interval ago; a lease that is lost, or that could not be
 * renewed before it ran out by this worker's clock, cancels its handler (see {@link Cancellation})
 * and its result is neither delivered nor committed. No job is handed to a handler with less than
 * {@code minLeaseLeft} of its lease left. Every job claimed ends in exactly one {@link
 * WorkOutcome}.
 *
 * <p>Thread-safe. {@link #close()} stops claiming, releases jobs not yet started, lets running
 * handlers finish within the drain timeout and commits their results, then cancels and releases
 * what is left; the relay stops last, after one round that sends what the last commits wrote.
 */
public final class FencedRuntime implements AutoCloseable {

  /**
   * Counters since start.
   *
   * @param inFlight claims not yet ended: waiting for a thread, running, or committing
   */
  public record Stats(
      long claimed,
      long completed,
      long fencedOff,
      long failed,
      long released,
      long abandoned,
      int inFlight,
      long claimStatements,
      long commitStatements,
      long renewStatements,
      long renewed,
      long storeErrors,
      long callbackErrors) {

    /** Returns how many claims have ended, in any outcome. */
    public long ended() {
      return completed + fencedOff + failed + released + abandoned;
    }
  }

  /**
   * What the runtime's maintenance did since start (all zero without {@link Builder#maintenance}).
   *
   * @param rounds rounds that ran to the end
   * @param jobsRemoved finished jobs removed, archived ones included
   * @param jobsArchived of those, jobs archived first
   * @param messagesRemoved delivered outbox messages removed with their jobs
   * @param failures rounds that failed (each logged, then retried after a pause)
   */
  public record MaintenanceStats(
      long rounds, long jobsRemoved, long jobsArchived, long messagesRemoved, long failures) {}

  /**
   * What the runtime's relay did since start (all zero without {@link Builder#relay}).
   *
   * @param rounds rounds over every destination, failed ones included
   * @param sent messages sent and recorded, refused ones included
   * @param refused of those, messages the receiver refused (a newer epoch had reached it)
   * @param failures calls that failed (each logged; the message stays undelivered and is sent
   *     again)
   */
  public record RelayStats(long rounds, long sent, long refused, long failures) {}

  private final Pipeline pipeline;
  private final @Nullable MaintenanceLoop maintenanceLoop;
  private final @Nullable Thread maintainer;
  private final @Nullable RelayLoop relayLoop;
  private final @Nullable Thread relayer;
  private final ClaimLoop claimLoop;
  private final Heartbeat heartbeat;
  private final CommitLoop commitLoop;
  private final List<HandlerLoop> handlerLoops = new ArrayList<>();
  private final List<Thread> handlerThreads = new ArrayList<>();
  private final List<Thread> threads = new ArrayList<>();
  private final Thread claimer;
  private final Thread committer;
  private final Thread heartbeater;
  private final AtomicBoolean stopped = new AtomicBoolean();
  private volatile boolean drained;

  private FencedRuntime(
      Pipeline pipeline, @Nullable MaintenanceLoop maintenanceLoop, @Nullable RelayLoop relayLoop) {
    this.pipeline = pipeline;
    String owner = pipeline.settings.owner();
    this.maintenanceLoop = maintenanceLoop;
    this.maintainer =
        maintenanceLoop == null ? null : thread("fencing-maintenance-" + owner, maintenanceLoop);
    this.relayLoop = relayLoop;
    this.relayer = relayLoop == null ? null : thread("fencing-relay-" + owner, relayLoop);
    this.claimLoop = new ClaimLoop(pipeline);
    this.heartbeat = new Heartbeat(pipeline);
    this.commitLoop = new CommitLoop(pipeline);
    this.claimer = thread("fencing-claimer-" + owner, claimLoop);
    this.heartbeater = thread("fencing-heartbeat-" + owner, heartbeat);
    this.committer = thread("fencing-committer-" + owner, commitLoop);
    for (int i = 0; i < pipeline.settings.concurrency(); i++) {
      HandlerLoop loop = new HandlerLoop(pipeline);
      handlerLoops.add(loop);
      String name = "fencing-handler-" + owner + "-" + i;
      Thread t =
          pipeline.settings.virtualThreads()
              ? Thread.ofVirtual().name(name).unstarted(loop)
              : Thread.ofPlatform().daemon().name(name).unstarted(loop);
      threads.add(t);
      handlerThreads.add(t);
    }
  }

  /**
   * Whether handlers run on virtual threads when {@link Builder#virtualThreads} is not called: true
   * on Java 24 and later, where a virtual thread blocking inside {@code synchronized} no longer
   * pins its carrier thread (JEP 491); false on Java 21 to 23.
   */
  public static boolean defaultVirtualThreads() {
    return Runtime.version().feature() >= 24;
  }

  /**
   * Starts configuring a runtime that claims from {@code queue} and commits there, with no receiver
   * (see {@link Builder#receiver}).
   *
   * @throws NullPointerException if {@code queue} is null
   */
  public static Builder builder(FencedQueue queue) {
    return new Builder(queue);
  }

  /**
   * Starts configuring a runtime that claims from {@code queue} and delivers to {@code receiver}:
   * {@code builder(queue).receiver(receiver)}.
   *
   * @throws NullPointerException if either is null
   */
  public static Builder builder(FencedQueue queue, FencedReceiver receiver) {
    return new Builder(queue).receiver(receiver);
  }

  /** Returns the counters so far. */
  public Stats stats() {
    Counters c = pipeline.counters;
    return new Stats(
        c.claimed.get(),
        c.completed.get(),
        c.fencedOff.get(),
        c.failed.get(),
        c.released.get(),
        c.abandoned.get(),
        pipeline.inFlight.size(),
        c.claimStatements.get(),
        c.commitStatements.get(),
        c.renewStatements.get(),
        c.renewed.get(),
        c.storeErrors.get(),
        c.callbackErrors.get());
  }

  /**
   * Whether the runtime can do its work now.
   *
   * @param renewalsFailing the latest lease renewal failed (after the queue's retries) and no
   *     statement of the runtime succeeded since: its leases will run out and its work be fenced
   *     off
   * @param claimsFailing the latest claim failed (the store unreachable, or refusing: a schema at a
   *     version the library may not run on, say); the runtime tries again with a backoff
   * @param lastFailure the latest failure's text, if any failed since start
   */
  public record Health(
      boolean renewalsFailing, boolean claimsFailing, java.util.Optional<String> lastFailure) {

    /** Whether neither renewals nor claims are failing. */
    public boolean healthy() {
      return !renewalsFailing && !claimsFailing;
    }
  }

  /** Returns whether the runtime can do its work now; see {@link Health}. */
  public Health health() {
    return new Health(
        pipeline.renewalsFailing(),
        pipeline.claimsFailing,
        java.util.Optional.ofNullable(pipeline.lastFailure));
  }

  /** Returns what the runtime's maintenance did so far. */
  public MaintenanceStats maintenanceStats() {
    return maintenanceStats(maintenanceLoop);
  }

  /** Returns what the runtime's relay did so far. */
  public RelayStats relayStats() {
    return relayStats(relayLoop);
  }

  static MaintenanceStats maintenanceStats(@Nullable MaintenanceLoop loop) {
    return loop == null
        ? new MaintenanceStats(0, 0, 0, 0, 0)
        : new MaintenanceStats(
            loop.rounds.get(),
            loop.jobsRemoved.get(),
            loop.jobsArchived.get(),
            loop.messagesRemoved.get(),
            loop.failures.get());
  }

  static RelayStats relayStats(@Nullable RelayLoop loop) {
    return loop == null
        ? new RelayStats(0, 0, 0, 0)
        : new RelayStats(
            loop.rounds.get(), loop.sent.get(), loop.refused.get(), loop.failures.get());
  }

  /** Stops as {@link #shutdown(Duration)} does, with the configured drain timeout. */
  @Override
  public void close() {
    shutdown(pipeline.settings.drainTimeout());
  }

  /**
   * Stops the runtime: stops claiming, releases jobs not yet started, lets running handlers finish
   * within {@code drainTimeout} and commits their results, then cancels the handlers still running
   * (interrupting them) and releases their jobs without counting an attempt; then the relay, if
   * any, runs one last round and stops. Returns when every runtime thread has ended, or a handler
   * ignored its interrupt for a further second (its job is released all the same and its late
   * result dropped). A second call waits for the first.
   *
   * @return whether every job in flight ended within the drain timeout
   * @throws IllegalArgumentException if {@code drainTimeout} is negative or over 24 h
   */
  public boolean shutdown(Duration drainTimeout) {
    dev.fencing.internal.Validate.delay("drainTimeout", drainTimeout);
    if (!stopped.compareAndSet(false, true)) {
      join(committer, Duration.ofMinutes(1));
      if (relayer != null) {
        join(relayer, Duration.ofMinutes(1));
      }
      return drained;
    }
    long deadline = System.nanoTime() + drainTimeout.toNanos();
    pipeline.stopping = true;
    if (maintenanceLoop != null) {
      // a round is one short transaction: let it end rather than cut it
      maintenanceLoop.stop();
    }
    claimLoop.stop();
    join(claimer, Duration.ofSeconds(30));
    List<InFlight> unstarted = new ArrayList<>();
    pipeline.ready.drainTo(unstarted);
    for (InFlight claim : unstarted) {
      pipeline.release(claim, "the runtime stopped before the job started");
    }
    awaitEmpty(deadline);
    drained = pipeline.inFlight.isEmpty();
    if (!drained) {
      cancelRemaining("the runtime stopped and its drain timeout of " + drainTimeout + " passed");
      awaitEmpty(System.nanoTime() + Duration.ofSeconds(1).toNanos());
      commitLoop.giveUp();
      for (InFlight claim : List.copyOf(pipeline.inFlight.values())) {
        if (claim.stage() != InFlight.Stage.COMMITTING) {
          pipeline.release(claim, claim.reason().orElse("the runtime stopped"));
        }
      }
    }
    for (HandlerLoop loop : handlerLoops) {
      loop.stop();
    }
    // wakes the idle ones; a handler still running was cancelled and interrupted already
    for (Thread t : handlerThreads) {
      t.interrupt();
    }
    commitLoop.stop();
    join(committer, Duration.ofSeconds(30));
    if (relayLoop != null) {
      // after the commits: its last round sends what they wrote
      relayLoop.stop();
    }
    heartbeat.stop();
    if (maintainer != null) {
      join(maintainer, Duration.ofSeconds(30));
    }
    if (relayer != null) {
      join(relayer, Duration.ofSeconds(30));
    }
    long end = System.nanoTime() + Duration.ofSeconds(1).toNanos();
    for (Thread t : threads) {
      join(t, Duration.ofNanos(Math.max(1, end - System.nanoTime())));
    }
    // a statement that never came back: its claim still ends in an outcome, and only one
    for (InFlight claim : List.copyOf(pipeline.inFlight.values())) {
      pipeline.resolve(
          claim,
          new WorkOutcome.Abandoned(
              claim.job, "the runtime stopped while a statement for it had not come back", null));
    }
    return drained;
  }

  private void cancelRemaining(String reason) {
    for (InFlight claim : pipeline.inFlight.values()) {
      if (claim.stage() != InFlight.Stage.COMMITTING) {
        claim.cancel(reason, null, true);
      }
    }
  }

  private void awaitEmpty(long deadlineNanos) {
    while (!pipeline.inFlight.isEmpty() && System.nanoTime() - deadlineNanos < 0) {
      try {
        Thread.sleep(5);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  private FencedRuntime start() {
    for (Thread t : threads) {
      t.start();
    }
    return this;
  }

  private Thread thread(String name, Runnable loop) {
    Thread t = Thread.ofPlatform().daemon().name(name).unstarted(loop);
    threads.add(t);
    return t;
  }

  static void join(Thread thread, Duration timeout) {
    if (thread == Thread.currentThread()) {
      return;
    }
    try {
      thread.join(timeout);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Configures a {@link FencedRuntime}; {@link #start()} checks every setting. */
  public static final class Builder {
    private final FencedQueue queue;
    private @Nullable FencedReceiver receiver;
    private @Nullable String queueName;
    private @Nullable String owner;
    private @Nullable OutboxHandler handler;
    private int concurrency = 4;
    private @Nullable Integer prefetch;
    private int batchSize = 100;
    private Duration leaseLength = Duration.ofSeconds(30);
    private @Nullable Duration heartbeatInterval;
    private @Nullable Duration minLeaseLeft;
    private Duration retryDelay = Duration.ofSeconds(10);
    private Duration idleWait = Duration.ofMillis(50);
    private Duration maxCommitDelay = Duration.ofMillis(2);
    private Duration drainTimeout = Duration.ofSeconds(30);
    private Duration fallbackPoll = Duration.ofSeconds(1);
    private boolean virtualThreads = defaultVirtualThreads();
    private Consumer<WorkOutcome> onOutcome = outcome -> {};
    private final Sidecars sidecars = new Sidecars();

    private Builder(FencedQueue queue) {
      this.queue = Objects.requireNonNull(queue, "queue");
    }

    /**
     * The receiver each result is delivered to, with the job's id and epoch, before its commit.
     * Optional: without one, results are committed only (with their outbox messages, if any).
     *
     * @throws NullPointerException if {@code receiver} is null
     */
    public Builder receiver(FencedReceiver receiver) {
      this.receiver = Objects.requireNonNull(receiver, "receiver");
      return this;
    }

    /** The queue to claim from: a plain identifier. Required. */
    public Builder queue(String queueName) {
      this.queueName = queueName;
      return this;
    }

    /** This process's name, stored as the owner of what it claims. Required. */
    public Builder owner(String owner) {
      this.owner = owner;
      return this;
    }

    /**
     * Computes each job's result. A handler is required: this one, or an {@link #outboxHandler};
     * the one set last counts.
     */
    public Builder handler(Handler handler) {
      Objects.requireNonNull(handler, "handler");
      this.handler =
          (job, cancellation) -> new HandlerResult(handler.handle(job, cancellation), List.of());
      return this;
    }

    /**
     * Computes each job's result and the outbox messages to commit with it, in the transaction of
     * its compare-and-set (the queue must have an outbox: PostgreSQL). Replaces {@link #handler}.
     */
    public Builder outboxHandler(OutboxHandler handler) {
      this.handler = Objects.requireNonNull(handler, "handler");
      return this;
    }

    /** Handler threads, 1 to 10,000; default 4. */
    public Builder concurrency(int concurrency) {
      this.concurrency = concurrency;
      return this;
    }

    /**
     * Runs handlers on virtual threads instead of platform threads; default {@link
     * #defaultVirtualThreads()}: true on Java 24 and later, false on Java 21 to 23. For handlers
     * that block (I/O, sleeps, calls to other services) with a {@link #concurrency} in the hundreds
     * or thousands: a blocked virtual thread holds no OS thread; and for many short jobs, whose
     * handler threads are woken once per job (at 128 handlers of 1 ms jobs, 1.18 to 1.29 times the
     * jobs per second of platform threads here, docs/BENCHMARKS.md). {@code concurrency} still
     * bounds the jobs running at once, and heartbeats, cancellation and shutdown work as on
     * platform threads: the claimer, heartbeat and committer stay on platform threads of their own,
     * so a handler that pins its carrier cannot hold up a renewal. Handlers that compute gain
     * nothing (docs/BENCHMARKS.md measures both). On Java 21 to 23, a handler that blocks inside
     * {@code synchronized} pins its carrier thread (so the default there is platform threads); from
     * Java 24 it does not. A cancelled handler is interrupted on either kind of thread; on a
     * virtual one, the JDK closes any socket it then blocks on while its interrupt is set, so its
     * later JDBC or HTTP calls may fail at its own connection instead of reaching the server.
     */
    public Builder virtualThreads(boolean virtualThreads) {
      this.virtualThreads = virtualThreads;
      return this;
    }

    /**
     * Claimed jobs that may wait for a free handler thread, 0 to 10,000; default as many as {@code
     * concurrency}. Waiting jobs are renewed like running ones. A claim holds its slot until its
     * handler is done; its commit does not hold one (up to two batches of results, or as many as
     * there are slots, may wait for their commit while the next claims go out, and handler threads
     * wait to hand over beyond that). For throughput with short handlers raise this to a few
     * batches (see docs/BENCHMARKS.md).
     */
    public Builder prefetch(int prefetch) {
      this.prefetch = prefetch;
      return this;
    }

    /** Most jobs per claim statement and results per commit statement, 1 to 10,000; default 100. */
    public Builder batchSize(int batchSize) {
      this.batchSize = batchSize;
      return this;
    }

    /** The lease of each claim and renewal; default 30 s. */
    public Builder leaseLength(Duration leaseLength) {
      this.leaseLength = leaseLength;
      return this;
    }

    /**
     * How often the leases in flight are renewed (those older than half of it); default a third of
     * the lease.
     */
    public Builder heartbeatInterval(Duration heartbeatInterval) {
      this.heartbeatInterval = heartbeatInterval;
      return this;
    }

    /**
     * The least lease a job must have left to be handed to a handler; default a third of the lease.
     * A job with less is released, claimable at once, without counting an attempt.
     */
    public Builder minLeaseLeft(Duration minLeaseLeft) {
      this.minLeaseLeft = minLeaseLeft;
      return this;
    }

    /** How long a failed job waits before it is claimable again; default 10 s. */
    public Builder retryDelay(Duration retryDelay) {
      this.retryDelay = retryDelay;
      return this;
    }

    /**
     * How long the claimer waits after a claim found nothing, on a queue that does not signal new
     * work ({@link FencedQueue#signalsWork()} false), so its polling interval; also how long it
     * waits for free slots before looking again; default 50 ms.
     */
    public Builder idleWait(Duration idleWait) {
      this.idleWait = idleWait;
      return this;
    }

    /**
     * On a queue that signals new work ({@link FencedQueue#signalsWork()}, PostgreSQL with
     * notifications on), how long the claimer waits at most after a claim found nothing, between
     * zero and 24 h; default 1 s. An enqueue wakes it within milliseconds, but a job whose lease
     * ran out (a crashed worker's) signals nothing, nor does one notified while the queue's
     * listening connection was down: such a job is claimed at the next poll, up to this late.
     */
    public Builder fallbackPoll(Duration fallbackPoll) {
      this.fallbackPoll = fallbackPoll;
      return this;
    }

    /** How long a result waits for others to share its commit statement; default 2 ms. */
    public Builder maxCommitDelay(Duration maxCommitDelay) {
      this.maxCommitDelay = maxCommitDelay;
      return this;
    }

    /** How long {@link FencedRuntime#close()} lets running handlers finish; default 30 s. */
    public Builder drainTimeout(Duration drainTimeout) {
      this.drainTimeout = drainTimeout;
      return this;
    }

    /**
     * Called once for every claim's outcome, on a runtime thread; keep it quick. A listener that
     * throws is counted in {@link Stats#callbackErrors()} and never stops the runtime.
     */
    public Builder onOutcome(Consumer<WorkOutcome> onOutcome) {
      this.onOutcome = Objects.requireNonNull(onOutcome, "onOutcome");
      return this;
    }

    /**
     * Runs {@code maintenance} (retention of finished jobs, storage upkeep) on a thread of its own:
     * rounds one after another while work is left, then one round every {@code every}, from 1 s to
     * 24 h, or every {@link Maintenance#upkeepEvery()} when that is shorter (PostgreSQL: its {@code
     * vacuumEvery}, 10 s), so that VACUUM keeps its pace while retention keeps yours. A failing
     * round is logged and retried later, and never touches the jobs in flight. One runtime per
     * database is enough; more share the work. Default: no maintenance.
     *
     * @throws NullPointerException if {@code maintenance} is null
     */
    public Builder maintenance(Maintenance maintenance, Duration every) {
      sidecars.maintenance(maintenance, every);
      return this;
    }

    /**
     * Relays the outbox messages for {@code destination} to {@code sender} from a thread of the
     * runtime, through {@link FencedOutbox#relay(String, FencedOutbox.Sender, int)}: each message
     * at least once, with the epoch of the commit that wrote it, up to {@code batchSize} per call;
     * a sender that throws leaves its message undelivered, and it is sent again after a pause. Call
     * once per destination. The relay needs no handler of this runtime: it sends what any worker
     * committed. Default: no relay.
     *
     * @throws NullPointerException if {@code outbox} or {@code sender} is null
     */
    public Builder relay(FencedOutbox outbox, String destination, FencedOutbox.Sender sender) {
      sidecars.relay(outbox, destination, sender);
      return this;
    }

    /**
     * Relays as {@link #relay(FencedOutbox, String, FencedOutbox.Sender)} does, to a receiver that
     * keeps the newest epoch per key ({@link FencedOutbox#relay(String, FencedReceiver, int)}).
     *
     * @throws NullPointerException if {@code outbox} or {@code receiver} is null
     */
    public Builder relay(FencedOutbox outbox, String destination, FencedReceiver receiver) {
      sidecars.relay(outbox, destination, receiver);
      return this;
    }

    /**
     * How long the relay waits after a round that left nothing to send, 1 ms to 24 h; default 200
     * ms. It is also the first pause after a failed round, doubling up to 30 s.
     */
    public Builder relayEvery(Duration every) {
      sidecars.relayEvery(every);
      return this;
    }

    /**
     * Starts the runtime's threads and returns it running.
     *
     * @throws IllegalArgumentException naming the first setting missing or out of range
     */
    public FencedRuntime start() {
      if (handler == null) {
        throw new IllegalArgumentException("handler must be set, but was null");
      }
      Settings settings =
          new Settings(
              queueName,
              owner,
              concurrency,
              prefetch != null ? prefetch : concurrency,
              batchSize,
              leaseLength,
              heartbeatInterval != null ? heartbeatInterval : third(leaseLength),
              minLeaseLeft != null ? minLeaseLeft : third(leaseLength),
              retryDelay,
              idleWait,
              maxCommitDelay,
              drainTimeout,
              fallbackPoll,
              virtualThreads);
      MaintenanceLoop maintenanceLoop = sidecars.maintenanceLoop();
      return new FencedRuntime(
              new Pipeline(settings, queue, receiver, handler, onOutcome),
              maintenanceLoop,
              sidecars.relayLoop(settings.batchSize()))
          .start();
    }

    private static Duration third(@Nullable Duration lease) {
      return lease == null ? Duration.ZERO : lease.dividedBy(3);
    }
  }
}
