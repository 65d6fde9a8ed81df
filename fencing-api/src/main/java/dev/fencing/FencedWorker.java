package dev.fencing;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Runs a handler under a lease in the order that keeps a zombie harmless: claim, call the receiver
 * with the job's id and epoch, then commit. If the worker dies between the call and the commit, the
 * next owner delivers again with a higher epoch, which the receiver accepts and which supersedes.
 *
 * <pre>{@code
 * FencedWorker worker = FencedWorker.builder(queue, receiver).queue("emails").owner("w-1").build();
 * WorkOutcome outcome = worker.runOnce(job -> render(job.payload()));
 * }</pre>
 *
 * <p>Immutable and thread-safe; one instance may serve many threads with the same owner name.
 */
public final class FencedWorker {

  /** Computes a job's result; it is delivered to the receiver, then committed. */
  @FunctionalInterface
  public interface Handler {
    /**
     * Returns the job's result as JSON. Throwing fails the job (it is retried until its attempts
     * run out).
     */
    String handle(Job job) throws Exception;
  }

  private final FencedQueue queue;
  private final FencedReceiver receiver;
  private final String queueName;
  private final String owner;
  private final Duration leaseLength;
  private final Duration retryDelay;

  private FencedWorker(Builder builder) {
    this.queue = builder.queue;
    this.receiver = builder.receiver;
    this.queueName = Validate.identifier("queue", builder.queueName);
    this.owner = Validate.owner(builder.owner);
    this.leaseLength = Validate.leaseLength(builder.leaseLength);
    this.retryDelay = Validate.delay("retryDelay", builder.retryDelay);
  }

  /**
   * Starts a worker for {@code queue}'s jobs that calls {@code receiver}.
   *
   * @throws NullPointerException if either is null
   */
  public static Builder builder(FencedQueue queue, FencedReceiver receiver) {
    return new Builder(queue, receiver);
  }

  /** Claims one job and runs it to an outcome; returns {@link WorkOutcome.Idle} if none was due. */
  public WorkOutcome runOnce(Handler handler) {
    Objects.requireNonNull(handler, "handler");
    Optional<Job> claimed = queue.claim(queueName, owner, leaseLength);
    if (claimed.isEmpty()) {
      return new WorkOutcome.Idle();
    }
    return run(claimed.get(), handler);
  }

  /** Runs an already claimed job to an outcome: handle, deliver, commit. */
  public WorkOutcome run(Job job, Handler handler) {
    String result;
    try {
      result = handler.handle(job);
      Validate.json("result", result);
    } catch (Exception e) {
      return fail(job, e);
    }
    FencedOutcome delivery;
    try {
      delivery = receiver.deliver(job.lease().key(), job.epoch(), result);
    } catch (RuntimeException e) {
      return fail(job, e);
    }
    if (delivery instanceof FencedOutcome.Refused refused) {
      return new WorkOutcome.FencedOff(job, WorkOutcome.Stage.DELIVER, refused);
    }
    try {
      return new WorkOutcome.Completed(
          job, (FencedOutcome.Accepted) delivery, queue.complete(job.lease(), result));
    } catch (FencedOffException e) {
      return new WorkOutcome.FencedOff(job, WorkOutcome.Stage.COMMIT, e.refusal());
    }
  }

  private WorkOutcome fail(Job job, Exception error) {
    try {
      queue.fail(job.lease(), String.valueOf(error), retryDelay);
      return new WorkOutcome.Failed(job, error);
    } catch (FencedOffException e) {
      return new WorkOutcome.FencedOff(job, WorkOutcome.Stage.FAIL, e.refusal());
    }
  }

  /** Configures a {@link FencedWorker}; {@link #build()} checks every setting. */
  public static final class Builder {
    private final FencedQueue queue;
    private final FencedReceiver receiver;
    private @Nullable String queueName;
    private @Nullable String owner;
    private Duration leaseLength = Duration.ofSeconds(30);
    private Duration retryDelay = Duration.ofSeconds(10);

    private Builder(FencedQueue queue, FencedReceiver receiver) {
      this.queue = Objects.requireNonNull(queue, "queue");
      this.receiver = Objects.requireNonNull(receiver, "receiver");
    }

    /** The queue to claim from: a plain identifier. Required. */
    public Builder queue(String queueName) {
      this.queueName = queueName;
      return this;
    }

    /** This worker's name, stored as the owner of what it claims. Required. */
    public Builder owner(String owner) {
      this.owner = owner;
      return this;
    }

    /** How long a claim lasts before another worker may take the job; default 30 s. */
    public Builder leaseLength(Duration leaseLength) {
      this.leaseLength = leaseLength;
      return this;
    }

    /** How long a failed job waits before it is claimable again; default 10 s. */
    public Builder retryDelay(Duration retryDelay) {
      this.retryDelay = retryDelay;
      return this;
    }

    /**
     * Returns the worker.
     *
     * @throws IllegalArgumentException naming the first setting that is missing or out of range
     */
    public FencedWorker build() {
      return new FencedWorker(this);
    }
  }
}
