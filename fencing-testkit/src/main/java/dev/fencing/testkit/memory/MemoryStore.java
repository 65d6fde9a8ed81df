package dev.fencing.testkit.memory;

import dev.fencing.CancelResult;
import dev.fencing.Enqueued;
import dev.fencing.Epoch;
import dev.fencing.FencedOffException;
import dev.fencing.FencedOutcome;
import dev.fencing.Job;
import dev.fencing.JobOptions;
import dev.fencing.JobSnapshot;
import dev.fencing.JobState;
import dev.fencing.KeyedJob;
import dev.fencing.Lease;
import dev.fencing.Maintenance;
import dev.fencing.OutboxMessage;
import dev.fencing.QueueDepth;
import dev.fencing.QueueLimits;
import dev.fencing.internal.Validate;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * The rows of an {@link InMemoryQueue} and the statements on them, each under one lock, so that
 * each is atomic as a statement on PostgreSQL is. Takes checked arguments: the queue checks them.
 */
final class MemoryStore {

  private final Clock clock;
  private final int maxAttempts;
  private final StoreLock lock = new StoreLock();
  private final TreeMap<Long, MemoryJob> jobs = new TreeMap<>();
  private final Map<String, TreeMap<Long, MemoryJob>> unfinished = new HashMap<>();
  private final Map<String, Map<String, Long>> keys = new HashMap<>();
  private final Map<String, QueueLimits> limits = new HashMap<>();
  private final MemoryLimits limiting = new MemoryLimits();
  final MemoryOutbox outbox = new MemoryOutbox(lock);
  private long lastId;

  MemoryStore(Clock clock, int maxAttempts) {
    this.clock = clock;
    this.maxAttempts = maxAttempts;
  }

  List<Long> add(String queue, List<Jsonb.Value> payloads, JobOptions options) {
    return lock.locked(
        () -> {
          Instant now = now();
          List<Long> ids = new ArrayList<>(payloads.size());
          for (Jsonb.Value payload : payloads) {
            ids.add(insert(queue, payload, null, options, now));
          }
          return ids;
        });
  }

  private long insert(
      String queue, Jsonb.Value payload, @Nullable String key, JobOptions options, Instant now) {
    MemoryJob job = new MemoryJob(++lastId, queue, maxAttempts, payload, key, options, now);
    jobs.put(job.id, job);
    unfinished.computeIfAbsent(queue, q -> new TreeMap<>()).put(job.id, job);
    if (key != null) {
      keys.computeIfAbsent(queue, q -> new HashMap<>()).put(key, job.id);
    }
    return job.id;
  }

  /**
   * Adds the jobs whose keys the queue does not hold, all or none, numbered in the order of their
   * keys, as on PostgreSQL.
   *
   * @param payloads the jobs' payloads as {@code jsonb} holds them
   * @throws IllegalArgumentException if a key names a job whose payload differs; nothing written
   */
  List<Enqueued> addKeyed(String queue, List<KeyedJob> keyed, List<Jsonb.Value> payloads) {
    return lock.locked(
        () -> {
          Map<String, Long> taken = keys.getOrDefault(queue, Map.of());
          Enqueued[] out = new Enqueued[keyed.size()];
          List<Integer> fresh = new ArrayList<>();
          for (int i = 0; i < keyed.size(); i++) {
            String key = keyed.get(i).key();
            Long id = taken.get(key);
            if (id == null) {
              fresh.add(i);
            } else if (jobs.get(id).payload.identity().equals(payloads.get(i).identity())) {
              out[i] = new Enqueued(id, key, false);
            } else {
              throw new IllegalArgumentException(
                  "jobs["
                      + i
                      + "].key "
                      + Validate.quote(key)
                      + " already names job "
                      + id
                      + " of queue '"
                      + queue
                      + "' with a different payload; nothing was enqueued");
            }
          }
          fresh.sort(Comparator.comparing(i -> keyed.get(i).key()));
          Instant now = now();
          for (int i : fresh) {
            String key = keyed.get(i).key();
            KeyedJob job = keyed.get(i);
            out[i] =
                new Enqueued(insert(queue, payloads.get(i), key, job.options(), now), key, true);
          }
          return List.of(out);
        });
  }

  QueueLimits limits(String queue) {
    return lock.locked(() -> limits.getOrDefault(queue, QueueLimits.NONE));
  }

  /** Sets the queue's limits and returns those it had. */
  QueueLimits setLimits(String queue, QueueLimits next) {
    return lock.locked(
        () -> {
          QueueLimits before = next.isNone() ? limits.remove(queue) : limits.put(queue, next);
          return before == null ? QueueLimits.NONE : before;
        });
  }

  /**
   * Claims as PostgreSQL does: up to a batch of expired leases and one of due pending jobs, the
   * expired leases on their jobs' last attempts ended failed, the rest served by priority (an
   * expired lease at 0), then oldest ready first, then by id; the jobs come back by id. Under a
   * running limit, at most as many as the limit leaves room for beside the queue's valid leases;
   * under a rate, at most as many as its bucket holds tokens; a pending job of a group only if its
   * group's limits let it start ({@link #startable}).
   */
  List<Job> claim(String queue, String owner, Duration leaseLength, int wanted) {
    return lock.locked(
        () -> {
          Instant now = now();
          QueueLimits limit = limits.getOrDefault(queue, QueueLimits.NONE);
          TreeMap<Long, MemoryJob> open = unfinished.getOrDefault(queue, new TreeMap<>());
          int batchSize = Math.min(wanted, MemoryLimits.room(limit, open.values(), now));
          MemoryLimits.Bucket bucket =
              limit.rate().map(r -> limiting.bucket(queue, "", r, now)).orElse(null);
          if (bucket != null) {
            batchSize = Math.min(batchSize, bucket.whole());
          }
          if (batchSize <= 0) {
            return List.of();
          }
          Comparator<MemoryJob> oldestReady = MemoryLimits.order(limit);
          Set<Long> startable = limiting.startable(queue, limit, open.values(), oldestReady, now);
          List<MemoryJob> chosen =
              new ArrayList<>(
                  open.values().stream()
                      .filter(j -> j.state() == JobState.PENDING && j.claimable(now))
                      .filter(j -> j.group == null || startable.contains(j.id))
                      .sorted(oldestReady)
                      .limit(batchSize)
                      .toList());
          List<MemoryJob> expired =
              open.values().stream()
                  .filter(j -> j.expired(now))
                  .sorted(oldestReady)
                  .limit(batchSize)
                  .toList();
          for (MemoryJob job : expired) {
            if (job.spent()) {
              job.endSpent(now);
              open.remove(job.id);
            } else {
              chosen.add(job);
            }
          }
          chosen.sort(oldestReady);
          List<Job> claimed = new ArrayList<>();
          for (MemoryJob job : chosen.subList(0, Math.min(batchSize, chosen.size()))) {
            if (startable.contains(job.id)) {
              limit
                  .ratePerGroup()
                  .ifPresent(r -> limiting.bucket(queue, job.group, r, now).take(1));
            }
            claimed.add(job.claim(owner, leaseLength, now));
          }
          if (bucket != null) {
            bucket.take(claimed.size());
          }
          claimed.sort(Comparator.comparingLong(Job::id));
          return claimed;
        });
  }

  /** As {@link dev.fencing.FencedQueue#waitingForLimits}. */
  long waitingForLimits(String queue) {
    return lock.locked(
        () -> {
          Instant now = now();
          QueueLimits limit = limits.getOrDefault(queue, QueueLimits.NONE);
          Collection<MemoryJob> open = unfinished.getOrDefault(queue, new TreeMap<>()).values();
          boolean full =
              MemoryLimits.room(limit, open, now) <= 0
                  || limit
                      .rate()
                      .map(r -> limiting.bucket(queue, "", r, now).whole() < 1)
                      .orElse(false);
          if (full) {
            return open.stream().filter(j -> j.state() == JobState.PENDING).count();
          }
          if (!limit.limitsGroups()) {
            return 0L;
          }
          Set<Long> startable =
              limiting.startable(queue, limit, open, Comparator.comparingLong(j -> j.id), now);
          return open.stream()
              .filter(j -> j.group != null && j.state() == JobState.PENDING && j.claimable(now))
              .filter(j -> !startable.contains(j.id))
              .count();
        });
  }

  /**
   * @throws FencedOffException if the lease no longer owns the job
   */
  Lease renew(Lease lease, Duration leaseLength) {
    return lock.locked(
        () -> {
          Instant now = now();
          MemoryJob job = job(lease);
          if (job == null) {
            throw new FencedOffException(new FencedOutcome.Removed(lease.key(), lease.epoch()));
          }
          if (!job.ownedBy(lease, now)) {
            throw new FencedOffException(job.refusal(lease));
          }
          return job.renew(leaseLength, now);
        });
  }

  /** Completes the job with {@code result} and writes {@code messages}, if the lease owns it. */
  FencedOutcome complete(Lease lease, Jsonb.Value result, List<OutboxMessage> messages) {
    return underLease(
        lease,
        (job, now) -> {
          job.complete(result, now);
          outbox.write(lease, messages);
        },
        job -> job.completedWith(result),
        0);
  }

  /** Fails the job with {@code error} (as the store keeps it), if the lease owns it. */
  FencedOutcome fail(Lease lease, String error, Duration retryDelay) {
    return underLease(
        lease,
        (job, now) -> job.fail(error, retryDelay, false, now),
        job -> job.failedWith(error),
        lease.epoch().value());
  }

  /** Ends the job failed with {@code error} (as the store keeps it), if the lease owns it. */
  FencedOutcome failFinally(Lease lease, String error) {
    return underLease(
        lease,
        (job, now) -> job.fail(error, Duration.ZERO, true, now),
        job -> job.failedFinallyWith(error),
        lease.epoch().value());
  }

  FencedOutcome release(Lease lease) {
    return underLease(
        lease, (job, now) -> job.release(now), MemoryJob::released, -lease.epoch().value());
  }

  /** A write under a lease: what it changes, given the job and the time. */
  private interface Change {
    void apply(MemoryJob job, Instant now);
  }

  /**
   * The frame of every write under a lease: the compare-and-set on owner and epoch of a running,
   * unexpired job; when it does not match, whether this very write landed before (a repeat), else
   * why it was refused.
   *
   * @param settledMark for a write that gives the job back (fail: +epoch, release: -epoch), the
   *     mark that tells it landed once the job was claimed again; 0 for none
   * @throws IllegalArgumentException if no job ever had the lease's id
   */
  private FencedOutcome underLease(
      Lease lease, Change change, Predicate<MemoryJob> sameWriteAgain, long settledMark) {
    return lock.locked(
        () -> {
          Instant now = now();
          MemoryJob job = job(lease);
          if (job == null) {
            return new FencedOutcome.Removed(lease.key(), lease.epoch());
          }
          if (job.ownedBy(lease, now)) {
            change.apply(job, now);
            if (job.finished()) {
              unfinished.get(job.queue).remove(job.id);
            }
            return new FencedOutcome.Accepted(lease.key(), lease.epoch(), false);
          }
          FencedOutcome.Refused refused = job.refusal(lease);
          boolean repeat =
              (refused instanceof FencedOutcome.AlreadyFinished && sameWriteAgain.test(job))
                  || (refused instanceof FencedOutcome.Superseded
                      && settledMark != 0
                      && job.settled(settledMark));
          return repeat ? new FencedOutcome.Accepted(lease.key(), lease.epoch(), true) : refused;
        });
  }

  /**
   * Cancels the job: a pending or running one ends failed with {@code error} as its last error, its
   * lease (if any) ended; a cancelled one answers as before; an ended one is left as it is.
   */
  CancelResult cancel(long jobId, @Nullable String reason, String error) {
    return lock.locked(
        () -> {
          MemoryJob job = jobs.get(jobId);
          if (job == null) {
            return new CancelResult.NotFound(jobId);
          }
          MemoryJob.Cancel before = job.cancelled();
          if (before != null) {
            return new CancelResult.Cancelled(jobId, before.was(), Epoch.of(before.fence()), true);
          }
          if (job.finished()) {
            return new CancelResult.AlreadyEnded(jobId, job.state());
          }
          MemoryJob.Cancel made = job.cancel(reason, error, now());
          unfinished.get(job.queue).remove(job.id);
          return new CancelResult.Cancelled(jobId, made.was(), Epoch.of(made.fence()), false);
        });
  }

  /**
   * The job {@code lease} names, or null if retention removed it; the caller holds the lock.
   *
   * @throws IllegalArgumentException if no job ever had that id
   */
  private @Nullable MemoryJob job(Lease lease) {
    MemoryJob job = jobs.get(lease.jobId());
    if (job == null && lease.jobId() > lastId) {
      throw new IllegalArgumentException(
          "jobId must name an existing job, but was " + lease.jobId() + " (unknown)");
    }
    return job;
  }

  /** The queue of job {@code jobId} if a claim may take the job now, else null. */
  @Nullable String claimableIn(long jobId) {
    return lock.locked(
        () -> {
          MemoryJob job = jobs.get(jobId);
          return job != null && job.claimable(now()) ? job.queue : null;
        });
  }

  Optional<JobSnapshot> find(long jobId) {
    return lock.locked(() -> Optional.ofNullable(jobs.get(jobId)).map(MemoryJob::snapshot));
  }

  QueueDepth depth(String queue) {
    return lock.locked(
        () -> {
          long pending = 0;
          long running = 0;
          for (MemoryJob job : unfinished.getOrDefault(queue, new TreeMap<>()).values()) {
            if (job.state() == JobState.PENDING) {
              pending++;
            } else {
              running++;
            }
          }
          long failed =
              jobs.values().stream()
                  .filter(j -> j.queue.equals(queue) && j.state() == JobState.FAILED)
                  .count();
          return new QueueDepth(pending, running, failed);
        });
  }

  /**
   * Removes up to {@code batchSize} jobs finished before {@code keepFinished} ago, oldest first,
   * with their delivered messages and their keys; a job that owes a message stays.
   */
  Maintenance.Report removeFinished(Duration keepFinished, int batchSize) {
    return lock.locked(
        () -> {
          Instant cutOff = now().minus(keepFinished);
          List<MemoryJob> old =
              jobs.values().stream()
                  .filter(j -> j.finished() && finishedAt(j).isBefore(cutOff))
                  .filter(j -> !outbox.owes(j.id))
                  .sorted(
                      Comparator.comparing(MemoryStore::finishedAt).thenComparingLong(j -> j.id))
                  .limit(batchSize)
                  .toList();
          long messages = 0;
          for (MemoryJob job : old) {
            jobs.remove(job.id);
            if (job.key != null) {
              keys.get(job.queue).remove(job.key);
            }
            messages += outbox.removeDelivered(job.id);
          }
          return new Maintenance.Report(old.size(), 0, messages, old.size() == batchSize);
        });
  }

  private static Instant finishedAt(MemoryJob job) {
    return Objects.requireNonNull(job.finishedAt());
  }

  int size() {
    return lock.locked(jobs::size);
  }

  /** Now on the queue's clock, to the microsecond, as PostgreSQL keeps times. */
  private Instant now() {
    return clock.instant().truncatedTo(ChronoUnit.MICROS);
  }
}
