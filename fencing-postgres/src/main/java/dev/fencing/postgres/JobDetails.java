package dev.fencing.postgres;

import dev.fencing.JobState;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A job's row as it was when read, with the owners of its recent epochs and its outbox messages;
 * for inspection, never for deciding ownership (use a commit).
 *
 * @param epoch the current epoch, 0 if never claimed
 * @param expiries how many times a lease on the job ran out
 * @param lastEvent the last write to the row: enqueued, claimed, renewed, completed, retry, failed,
 *     released, requeued or admin_failed; on the append-only engine also expired (a claim took the
 *     job's expired lease over and put it back), and never renewed (a renewal extends the claim,
 *     not the job)
 * @param settledEpochs the epochs whose owners gave the job back: +epoch for a fail, -epoch for a
 *     release
 * @param history who held which epoch, for the last 16 claims, oldest first; claims made before the
 *     history column was installed are missing
 * @param messages the outbox messages its commit wrote, by index
 */
public record JobDetails(
    long id,
    String queue,
    JobState state,
    @Nullable String owner,
    long epoch,
    int attempts,
    int maxAttempts,
    int expiries,
    @Nullable String lastError,
    String lastEvent,
    List<Long> settledEpochs,
    Instant createdAt,
    Instant updatedAt,
    Instant runAt,
    @Nullable Instant leaseExpiresAt,
    @Nullable Instant finishedAt,
    String payload,
    @Nullable String result,
    List<EpochOwner> history,
    List<OutboxEntry> messages) {

  /**
   * @throws NullPointerException if a required field is null
   */
  public JobDetails {
    Objects.requireNonNull(queue, "queue");
    Objects.requireNonNull(state, "state");
    Objects.requireNonNull(lastEvent, "lastEvent");
    Objects.requireNonNull(createdAt, "createdAt");
    Objects.requireNonNull(updatedAt, "updatedAt");
    Objects.requireNonNull(runAt, "runAt");
    Objects.requireNonNull(payload, "payload");
    settledEpochs = List.copyOf(settledEpochs);
    history = List.copyOf(history);
    messages = List.copyOf(messages);
  }
}
