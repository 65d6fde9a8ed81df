package dev.fencing.testkit.memory;

import dev.fencing.Epoch;
import dev.fencing.FencedOutcome;
import dev.fencing.Job;
import dev.fencing.JobOptions;
import dev.fencing.JobSnapshot;
import dev.fencing.JobState;
import dev.fencing.Lease;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One job's row, with the columns and transitions of the PostgreSQL queue's update-in-place engine.
 * Not thread-safe: its queue holds a lock around every call.
 */
final class MemoryJob {

  /** The last write to the row, which tells a retried write that landed from one that did not. */
  enum Event {
    ENQUEUED,
    CLAIMED,
    RENEWED,
    COMPLETED,
    RETRY,
    FAILED,
    RELEASED,
    CANCELLED
  }

  /**
   * What a cancel kept: what the job was, and the epoch above every lease it was handed out under.
   */
  record Cancel(JobState was, long fence, @Nullable String reason) {}

  /** How many epochs back a retried fail or release can still be told to have landed. */
  private static final long SETTLED_EPOCHS_KEPT = 16;

  final long id;
  final String queue;
  final int maxAttempts;
  final Jsonb.Value payload;
  final @Nullable String key;
  final Instant createdAt;

  /** Its priority, for its whole life: a retry and a release keep it. */
  final int priority;

  /** Its group, which its queue's group limits count; null for none. */
  final @Nullable String group;

  private JobState state = JobState.PENDING;
  private @Nullable String owner;
  private long epoch;
  private int attempts;
  private int expiries;
  private Jsonb.@Nullable Value result;
  private @Nullable String lastError;
  private Instant runAt;
  private @Nullable Instant leaseExpiresAt;
  private @Nullable Instant finishedAt;
  private Event lastEvent = Event.ENQUEUED;
  private @Nullable Cancel cancel;

  /** +epoch for a fail, -epoch for a release, of the last epochs. */
  private final Deque<Long> settled = new ArrayDeque<>();

  MemoryJob(
      long id,
      String queue,
      int maxAttempts,
      Jsonb.Value payload,
      @Nullable String key,
      JobOptions options,
      Instant now) {
    this.id = id;
    this.queue = queue;
    this.maxAttempts = maxAttempts;
    this.payload = payload;
    this.key = key;
    this.createdAt = now;
    this.priority = options.priority();
    this.group = options.group().orElse(null);
    this.runAt =
        options
            .runAt()
            .map(t -> t.truncatedTo(ChronoUnit.MICROS))
            .or(() -> options.delay().map(d -> plus(now, d)))
            .orElse(now);
  }

  JobState state() {
    return state;
  }

  boolean finished() {
    return state == JobState.COMPLETED || state == JobState.FAILED;
  }

  @Nullable Instant finishedAt() {
    return finishedAt;
  }

  /** Whether a claim may take it now: pending and due, or running with its lease run out. */
  boolean claimable(Instant now) {
    return (state == JobState.PENDING && !runAt.isAfter(now)) || expired(now);
  }

  boolean expired(Instant now) {
    return state == JobState.RUNNING && !Objects.requireNonNull(leaseExpiresAt).isAfter(now);
  }

  /** Since when it is claimable: its run time, or when its lease ran out. */
  Instant readyAt() {
    return state == JobState.RUNNING ? Objects.requireNonNull(leaseExpiresAt) : runAt;
  }

  /** The priority it is claimed at: its own while pending, 0 when its lease ran out. */
  int rank() {
    return state == JobState.RUNNING ? 0 : priority;
  }

  /** Whether its lease ran out on its last attempt: it ends, it is not handed out again. */
  boolean spent() {
    return state == JobState.RUNNING && attempts >= maxAttempts;
  }

  /** The compare-and-set every write under a lease goes through. */
  boolean ownedBy(Lease lease, Instant now) {
    return lease.owner().equals(owner)
        && lease.epoch().value() == epoch
        && state == JobState.RUNNING
        && Objects.requireNonNull(leaseExpiresAt).isAfter(now);
  }

  /** Hands the job to {@code claimant} at the next epoch, counting an attempt. */
  Job claim(String claimant, Duration leaseLength, Instant now) {
    if (state == JobState.RUNNING) {
      expiries++;
    }
    state = JobState.RUNNING;
    owner = claimant;
    epoch = Math.addExact(epoch, 1);
    attempts++;
    leaseExpiresAt = plus(now, leaseLength);
    lastEvent = Event.CLAIMED;
    return new Job(lease(), queue, payload.text(), attempts);
  }

  /** Ends a job whose lease ran out on its last attempt: failed, at its epoch. */
  void endSpent(Instant now) {
    lastError =
        "lease ran out "
            + (expiries == 0 ? "once" : (expiries + 1) + " times")
            + "; "
            + attempts
            + " of "
            + maxAttempts
            + " attempts used";
    expiries++;
    state = JobState.FAILED;
    leaseExpiresAt = null;
    finishedAt = now;
    lastEvent = Event.FAILED;
  }

  Lease renew(Duration leaseLength, Instant now) {
    leaseExpiresAt = plus(now, leaseLength);
    lastEvent = Event.RENEWED;
    return lease();
  }

  void complete(Jsonb.Value value, Instant now) {
    state = JobState.COMPLETED;
    result = value;
    leaseExpiresAt = null;
    finishedAt = now;
    lastEvent = Event.COMPLETED;
  }

  /**
   * Records a failure: the job waits again after {@code retryDelay}, or ends failed when its
   * attempts ran out or the failure is {@code last}.
   */
  void fail(String error, Duration retryDelay, boolean last, Instant now) {
    boolean exhausted = last || attempts >= maxAttempts;
    state = exhausted ? JobState.FAILED : JobState.PENDING;
    runAt = plus(now, retryDelay);
    lastError = error;
    leaseExpiresAt = null;
    finishedAt = exhausted ? now : null;
    lastEvent = exhausted ? Event.FAILED : Event.RETRY;
    settle(epoch);
  }

  void release(Instant now) {
    state = JobState.PENDING;
    runAt = now;
    attempts--;
    leaseExpiresAt = null;
    lastEvent = Event.RELEASED;
    settle(-epoch);
  }

  /**
   * Ends a pending or running job failed, cancelled: its lease (if any) ends with it, and every
   * lease it was handed out under is refused from now on.
   *
   * @param error the last error, as the store keeps it
   */
  Cancel cancel(@Nullable String reason, String error, Instant now) {
    cancel = new Cancel(state, Math.addExact(epoch, 1), reason);
    state = JobState.FAILED;
    lastError = error;
    leaseExpiresAt = null;
    finishedAt = now;
    lastEvent = Event.CANCELLED;
    return cancel;
  }

  /** What the job's cancel kept, or null if it was not cancelled. */
  @Nullable Cancel cancelled() {
    return cancel;
  }

  private void settle(long mark) {
    settled.addLast(mark);
    settled.removeIf(m -> Math.abs(m) <= epoch - SETTLED_EPOCHS_KEPT);
  }

  /** Whether this very lease already completed the job with an equal result. */
  boolean completedWith(Jsonb.Value value) {
    return lastEvent == Event.COMPLETED
        && result != null
        && result.identity().equals(value.identity());
  }

  /** Whether this very lease already failed the job with this error. */
  boolean failedWith(String error) {
    return (lastEvent == Event.FAILED || lastEvent == Event.RETRY) && error.equals(lastError);
  }

  /** Whether the job ended failed with {@code error}. */
  boolean failedFinallyWith(String error) {
    return lastEvent == Event.FAILED && error.equals(lastError);
  }

  boolean released() {
    return lastEvent == Event.RELEASED;
  }

  /** Whether the owner of epoch {@code |mark|} gave the job back so (fail: +, release: -). */
  boolean settled(long mark) {
    return settled.contains(mark);
  }

  /** Why a write under {@code lease} was refused, from the row as it stands. */
  FencedOutcome.Refused refusal(Lease lease) {
    String k = lease.key();
    long mine = lease.epoch().value();
    if (cancel != null && mine < cancel.fence()) {
      return new FencedOutcome.Cancelled(k, lease.epoch(), cancel.reason());
    }
    if (epoch > mine) {
      return new FencedOutcome.Superseded(k, lease.epoch(), Epoch.of(epoch), owner);
    }
    if (epoch < mine || !lease.owner().equals(owner)) {
      return new FencedOutcome.NotOwner(
          k, lease.epoch(), lease.owner(), epoch == 0 ? null : Epoch.of(epoch), owner);
    }
    if (state == JobState.RUNNING) {
      return new FencedOutcome.LeaseExpired(
          k, lease.epoch(), Objects.requireNonNull(leaseExpiresAt));
    }
    return new FencedOutcome.AlreadyFinished(k, lease.epoch(), state);
  }

  JobSnapshot snapshot() {
    return new JobSnapshot(
        id,
        queue,
        state,
        owner,
        epoch,
        attempts,
        maxAttempts,
        payload.text(),
        result == null ? null : result.text(),
        lastError,
        runAt,
        leaseExpiresAt);
  }

  private Lease lease() {
    return new Lease(
        id, Objects.requireNonNull(owner), Epoch.of(epoch), Objects.requireNonNull(leaseExpiresAt));
  }

  /** {@code now} plus {@code duration}, to the microsecond, as PostgreSQL's timestamps keep it. */
  static Instant plus(Instant now, Duration duration) {
    return now.plus(duration.toNanos() / 1_000, ChronoUnit.MICROS);
  }
}
