package dev.fencing;

import java.time.Instant;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A job's row as it was when read; for inspection, never for deciding ownership (use a commit).
 *
 * @param id the job's id
 * @param queue its queue
 * @param state where it stands
 * @param owner the worker that holds (or last held) it, or null
 * @param epoch the job's current epoch, 0 if it was never claimed
 * @param attempts claims counted so far
 * @param maxAttempts the claims it may take before it ends failed
 * @param payload its payload, as stored (JSON text)
 * @param result the result its commit stored, or null
 * @param lastError the error its last failure left, or null
 * @param runAt when it is (or was) due
 * @param leaseExpiresAt when the lease on it runs (or ran) out, or null when no lease is on it
 * @since 0.1
 */
public record JobSnapshot(
    long id,
    String queue,
    JobState state,
    @Nullable String owner,
    long epoch,
    int attempts,
    int maxAttempts,
    String payload,
    @Nullable String result,
    @Nullable String lastError,
    Instant runAt,
    @Nullable Instant leaseExpiresAt) {

  /**
   * @throws NullPointerException naming the component if {@code queue}, {@code state}, {@code
   *     payload} or {@code runAt} is null
   */
  public JobSnapshot {
    Objects.requireNonNull(queue, "queue");
    Objects.requireNonNull(state, "state");
    Objects.requireNonNull(payload, "payload");
    Objects.requireNonNull(runAt, "runAt");
  }
}
