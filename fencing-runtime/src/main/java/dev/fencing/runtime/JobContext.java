package dev.fencing.runtime;

import dev.fencing.Epoch;
import dev.fencing.Job;
import dev.fencing.Lease;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A claimed job as its {@link Handler} sees it: the payload decoded as its {@link
 * dev.fencing.JobType} says, with the lease that fences it (its id, epoch and owner) and the
 * attempt. Pass {@link #epoch()} on to every external system the handler writes to, so that a newer
 * claim's writes win there too.
 *
 * @param job the job as claimed, its payload the stored JSON text
 * @param payload the payload decoded; {@code null} only for a {@code Void} payload
 * @param <P> the payload's type
 * @since 0.1
 */
public record JobContext<P>(Job job, @Nullable P payload) {

  /**
   * @throws NullPointerException if {@code job} is null
   */
  public JobContext {
    Objects.requireNonNull(job, "job");
  }

  /** Returns the job's id. */
  public long id() {
    return job.id();
  }

  /** Returns the epoch of this claim: the fencing token to hand to external systems. */
  public Epoch epoch() {
    return job.epoch();
  }

  /** Returns the lease under which this claim holds the job. */
  public Lease lease() {
    return job.lease();
  }

  /** Returns the job's queue. */
  public String queue() {
    return job.queue();
  }

  /** Returns which attempt this claim is, from 1. */
  public int attempt() {
    return job.attempt();
  }

  /** Returns the payload as stored: JSON text. */
  public String json() {
    return job.payload();
  }
}
