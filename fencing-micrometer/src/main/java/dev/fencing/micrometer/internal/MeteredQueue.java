package dev.fencing.micrometer.internal;

import dev.fencing.CommitOutcome;
import dev.fencing.Enqueued;
import dev.fencing.FencedOffException;
import dev.fencing.FencedOutcome;
import dev.fencing.FencedQueue;
import dev.fencing.ForwardingFencedQueue;
import dev.fencing.Job;
import dev.fencing.JobOptions;
import dev.fencing.KeyedJob;
import dev.fencing.Lease;
import dev.fencing.OutboxMessage;
import dev.fencing.Renewal;
import dev.fencing.internal.Batches;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * A {@link FencedQueue} that meters every call and passes it, unchanged, to the queue it wraps (a
 * {@link ForwardingFencedQueue}: each method, the interface's default methods included, calls the
 * same method of the delegate, so the delegate's own batching is kept; those it does not meter,
 * {@code find}, {@code depth}, the wake-ups and the queue limits, it inherits). A refusal is an
 * answer, not an error: it is counted by reason and rethrown. Any other exception is counted in the
 * timer's {@code error} tag and rethrown as it was.
 */
public final class MeteredQueue extends ForwardingFencedQueue {

  private static final String CLAIM = "fencing.claim";
  private static final String COMMIT = "fencing.commit";
  private static final String RENEW = "fencing.renew";

  private final FencedQueue delegate;
  private final Instruments meters;

  public MeteredQueue(FencedQueue delegate, Instruments meters) {
    super(delegate);
    this.delegate = delegate;
    this.meters = meters;
  }

  @Override
  public long enqueue(String queue, String payload) {
    long id = timed("fencing.enqueue", queue, () -> delegate.enqueue(queue, payload));
    enqueued(queue, 1);
    return id;
  }

  @Override
  public List<Long> enqueueAll(String queue, List<String> payloads) {
    List<Long> ids = timed("fencing.enqueue", queue, () -> delegate.enqueueAll(queue, payloads));
    enqueued(queue, ids.size());
    return ids;
  }

  @Override
  public long enqueue(String queue, String payload, JobOptions options) {
    long id = timed("fencing.enqueue", queue, () -> delegate.enqueue(queue, payload, options));
    enqueued(queue, 1);
    return id;
  }

  @Override
  public List<Long> enqueueAll(String queue, List<String> payloads, JobOptions options) {
    List<Long> ids =
        timed("fencing.enqueue", queue, () -> delegate.enqueueAll(queue, payloads, options));
    enqueued(queue, ids.size());
    return ids;
  }

  @Override
  public Enqueued enqueue(String queue, KeyedJob job) {
    return enqueueKeyed(queue, List.of(Batches.keyedJob(job))).getFirst();
  }

  /** Counts the jobs written: a key that was already taken adds nothing. */
  @Override
  public List<Enqueued> enqueueKeyed(String queue, List<KeyedJob> jobs) {
    List<Enqueued> out = timed("fencing.enqueue", queue, () -> delegate.enqueueKeyed(queue, jobs));
    enqueued(queue, (int) out.stream().filter(Enqueued::created).count());
    return out;
  }

  /** Not timed: a wait is idle time, not latency. */
  @Override
  public Optional<Job> claim(String queue, String owner, Duration leaseLength) {
    Optional<Job> job = timed(CLAIM, queue, () -> delegate.claim(queue, owner, leaseLength));
    claimed(queue, job.isPresent() ? 1 : 0);
    return job;
  }

  @Override
  public List<Job> claimBatch(String queue, String owner, Duration leaseLength, int batchSize) {
    List<Job> jobs =
        timed(CLAIM, queue, () -> delegate.claimBatch(queue, owner, leaseLength, batchSize));
    claimed(queue, jobs.size());
    return jobs;
  }

  @Override
  public Lease renew(Lease lease, Duration leaseLength) {
    try {
      Lease renewed = timed(RENEW, null, () -> delegate.renew(lease, leaseLength));
      renewal("renewed");
      return renewed;
    } catch (FencedOffException e) {
      renewal("lost");
      meters.fencedOff(e.refusal(), "renew");
      throw e;
    }
  }

  @Override
  public List<Renewal> renewAll(List<Lease> leases, Duration leaseLength) {
    List<Renewal> renewals = timed(RENEW, null, () -> delegate.renewAll(leases, leaseLength));
    for (Renewal renewal : renewals) {
      switch (renewal) {
        case Renewal.Renewed renewed -> renewal("renewed");
        case Renewal.Lost lost -> {
          renewal("lost");
          meters.fencedOff(lost.refusal(), "renew");
        }
      }
    }
    return renewals;
  }

  @Override
  public FencedOutcome.Accepted complete(Lease lease, String result) {
    return committed(lease, () -> delegate.complete(lease, result));
  }

  @Override
  public FencedOutcome.Accepted complete(Lease lease, String result, List<OutboxMessage> messages) {
    return committed(lease, () -> delegate.complete(lease, result, messages));
  }

  @Override
  public List<CommitOutcome> completeAll(List<Completion> completions) {
    if (completions != null) {
      for (Completion completion : completions) {
        if (completion != null) {
          meters.leaseRemaining(completion.lease());
        }
      }
    }
    List<CommitOutcome> outcomes = timed(COMMIT, null, () -> delegate.completeAll(completions));
    outcomes.forEach(meters::commitOutcome);
    return outcomes;
  }

  @Override
  public FencedOutcome.Accepted fail(Lease lease, String error, Duration retryDelay) {
    return settled("fencing.fail", "fail", () -> delegate.fail(lease, error, retryDelay));
  }

  @Override
  public FencedOutcome.Accepted failFinally(Lease lease, String error) {
    return settled(
        "fencing.fail.finally", "fail_finally", () -> delegate.failFinally(lease, error));
  }

  @Override
  public FencedOutcome.Accepted release(Lease lease) {
    return settled("fencing.release", "release", () -> delegate.release(lease));
  }

  private FencedOutcome.Accepted committed(Lease lease, Supplier<FencedOutcome.Accepted> commit) {
    meters.leaseRemaining(lease);
    try {
      FencedOutcome.Accepted accepted = timed(COMMIT, null, commit);
      meters.commitOutcome(accepted);
      return accepted;
    } catch (FencedOffException e) {
      meters.commitOutcome(e.refusal());
      throw e;
    } catch (IllegalArgumentException e) {
      // the store would not take the result (or a parameter was bad): nothing was written
      meters.commitOutcome(new CommitOutcome.Invalid(lease.key(), lease.epoch(), e));
      throw e;
    }
  }

  private FencedOutcome.Accepted settled(
      String timer, String stage, Supplier<FencedOutcome.Accepted> call) {
    try {
      return timed(timer, null, call);
    } catch (FencedOffException e) {
      meters.fencedOff(e.refusal(), stage);
      throw e;
    }
  }

  /**
   * Runs {@code call} under the timer {@code name}, tagged with {@code queue} where the call names
   * one. A refusal is timed as an answer ({@code error=none}); any exception is rethrown as it was.
   */
  private <T> T timed(String name, @Nullable String queue, Supplier<T> call) {
    Tags tags = queue == null ? Tags.empty() : Tags.of("queue", queue);
    Timer.Sample sample = meters.start();
    Throwable error = null;
    try {
      return call.get();
    } catch (FencedOffException e) {
      throw e;
    } catch (RuntimeException | Error e) {
      error = e;
      throw e;
    } finally {
      meters.stop(sample, name, description(name), tags, error);
    }
  }

  private void enqueued(String queue, int count) {
    meters
        .counter("fencing.jobs.enqueued", "Jobs added to the queue", Tags.of("queue", queue))
        .increment(count);
  }

  private void claimed(String queue, int count) {
    meters
        .counter("fencing.jobs.claimed", "Jobs handed out by claims", Tags.of("queue", queue))
        .increment(count);
  }

  private void renewal(String outcome) {
    meters
        .counter(
            "fencing.renewals",
            "Leases renewed by a heartbeat, or lost (the renewal was refused)",
            Tags.of("outcome", outcome))
        .increment();
  }

  private static String description(String timer) {
    return switch (timer) {
      case "fencing.enqueue" -> "Enqueue statements";
      case CLAIM -> "Claim statements, one per claim or claimBatch call";
      case RENEW -> "Renew statements, one per renew or renewAll call";
      case COMMIT -> "Commit statements, one per complete or completeAll call";
      case "fencing.fail" -> "Statements recording a failed attempt";
      case "fencing.fail.finally" -> "Statements ending a job failed at once";
      case "fencing.release" -> "Statements giving a job back";
      default -> timer;
    };
  }
}
