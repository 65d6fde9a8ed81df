package dev.fencing.postgres.admin;

import dev.fencing.JobSnapshot;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The page of one job ({@link PostgresAdmin#job}): the job as {@code find} reads it, with what only
 * the operators' view shows (how its row came to be, the owners of its recent epochs, its outbox
 * messages); for inspection, never for deciding ownership (use a commit). A list of jobs shows
 * {@link JobRow}s.
 *
 * @param job the job's row as it was when read
 * @param expiries how many times a lease on the job ran out
 * @param lastEvent the last write to the row: enqueued, claimed, renewed, completed, retry, failed,
 *     released, requeued or admin_failed; on the append-only engine also expired (a claim took the
 *     job's expired lease over and put it back), and never renewed (a renewal extends the claim,
 *     not the job)
 * @param settledEpochs the epochs whose owners gave the job back: +epoch for a fail, -epoch for a
 *     release
 * @param createdAt when it was enqueued (database clock)
 * @param updatedAt when its row was last written (database clock)
 * @param finishedAt when it ended, or null if it has not
 * @param history who held which epoch, for the last 16 claims, oldest first; claims made before the
 *     history column was installed are missing
 * @param messages the outbox messages its commit wrote, by index
 * @since 0.1
 */
public record JobDetails(
    JobSnapshot job,
    int expiries,
    String lastEvent,
    List<Long> settledEpochs,
    Instant createdAt,
    Instant updatedAt,
    @Nullable Instant finishedAt,
    List<EpochOwner> history,
    List<OutboxEntry> messages) {

  /**
   * @throws NullPointerException naming the component if a required one is null, or if a list holds
   *     null
   */
  public JobDetails {
    Objects.requireNonNull(job, "job");
    Objects.requireNonNull(lastEvent, "lastEvent");
    Objects.requireNonNull(createdAt, "createdAt");
    Objects.requireNonNull(updatedAt, "updatedAt");
    settledEpochs = List.copyOf(settledEpochs);
    history = List.copyOf(history);
    messages = List.copyOf(messages);
  }
}
