package dev.fencing;

import dev.fencing.internal.Validate;
import java.time.Instant;
import java.util.Objects;

/**
 * The right to work on one job, as a claim granted it. A lease is proof of nothing by itself: every
 * commit made with it is checked against the job's current owner and epoch, and refused if either
 * has moved on.
 *
 * @param jobId the job, at least 1
 * @param owner the worker that claimed it, not blank, at most 200 characters
 * @param epoch the fencing token of this claim
 * @param expiresAt when the lease runs out, as the database clock reported it
 * @since 0.1
 */
public record Lease(long jobId, String owner, Epoch epoch, Instant expiresAt) {

  /**
   * @throws IllegalArgumentException if {@code jobId} is less than 1 or {@code owner} is blank or
   *     too long
   * @throws NullPointerException if any reference is null
   */
  public Lease {
    Validate.jobId(jobId);
    Validate.owner(owner);
    Objects.requireNonNull(epoch, "epoch");
    Objects.requireNonNull(expiresAt, "expiresAt");
  }

  /** Returns the key this lease's job is known by at a receiver: the job id in decimal. */
  public String key() {
    return Long.toString(jobId);
  }
}
