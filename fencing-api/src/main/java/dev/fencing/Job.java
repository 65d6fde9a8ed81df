package dev.fencing;

import java.util.Objects;

/**
 * A job as a claim handed it out: the lease to commit with, and what to work on.
 *
 * @param lease the lease this claim granted
 * @param queue the queue the job was claimed from
 * @param payload the job's payload, JSON
 * @param attempt which claim of the job this is, counting from 1
 * @since 0.1
 */
public record Job(Lease lease, String queue, String payload, int attempt) {

  /**
   * @throws NullPointerException if any reference is null
   */
  public Job {
    Objects.requireNonNull(lease, "lease");
    Objects.requireNonNull(queue, "queue");
    Objects.requireNonNull(payload, "payload");
  }

  /** Returns the job's id. */
  public long id() {
    return lease.jobId();
  }

  /** Returns the epoch of this claim. */
  public Epoch epoch() {
    return lease.epoch();
  }
}
