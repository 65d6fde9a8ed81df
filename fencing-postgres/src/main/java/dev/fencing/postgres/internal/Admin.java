package dev.fencing.postgres.internal;

import dev.fencing.CancelResult;
import dev.fencing.SchemaNotInstalledException;
import dev.fencing.StoreUnavailableException;
import dev.fencing.postgres.AdminChange;
import dev.fencing.postgres.JobDetails;
import dev.fencing.postgres.JobHistory;
import dev.fencing.postgres.JobOptionsView;
import dev.fencing.postgres.JobPage;
import dev.fencing.postgres.JobSearch;
import dev.fencing.postgres.OutboxBacklog;
import dev.fencing.postgres.OwnershipRow;
import dev.fencing.postgres.QueueActivity;
import dev.fencing.postgres.QueueSummary;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Inspection and operator changes of jobs, what {@code PostgresAdmin} runs, on the tables of one
 * engine: {@code inplace.InPlaceAdmin} or {@code append.AppendAdmin}, which {@link JobStore#admin}
 * gives. No change touches an epoch, so a later claim still takes a larger one.
 */
public interface Admin {

  /** Returns the schema this admin reads and changes. */
  String schema();

  /**
   * Checks that the schema holds the engine's tables with everything this jar reads.
   *
   * @throws SchemaNotInstalledException if it does not, saying how to install
   * @throws StoreUnavailableException if the database could not be reached or refused
   */
  void checkInstalled();

  /**
   * Returns every queue that has pending, running or failed jobs, by name; {@code countCompleted}
   * adds completed counts (and queues with only completed jobs).
   */
  List<QueueSummary> queues(boolean countCompleted);

  /** Returns the job with its epoch history and outbox messages, if there is one with that id. */
  Optional<JobDetails> job(long jobId);

  /** Returns the job's claims and recorded refused writes, newest first, if there is such a job. */
  Optional<JobHistory> history(long jobId);

  /**
   * Puts a failed job back to pending, claimable now, with its attempts counted from zero; the
   * epoch stays, so the next claim's is larger than any before. Any other state is refused, and so
   * is a cancelled job (its next epoch is promised to receivers as its fence).
   */
  AdminChange requeue(long jobId);

  /**
   * Ends a pending or running job failed with {@code reason}; a running job's holder is fenced off.
   *
   * @throws IllegalArgumentException if {@code reason} is blank; nothing is written
   */
  AdminChange fail(long jobId, String reason);

  /**
   * Cancels a pending or running job, as {@link dev.fencing.FencedQueue#cancel(long, String)} says:
   * its end and its {@code fencing_cancel} row in one transaction, under the lock a commit of the
   * job takes.
   *
   * @throws IllegalArgumentException if {@code reason} is blank; nothing is written
   */
  CancelResult cancel(long jobId, @Nullable String reason);

  /**
   * Deletes finished jobs older than {@code olderThan} (see {@link Retention}).
   *
   * @return how many jobs were deleted
   */
  long purge(Duration olderThan, @Nullable String queue, int batchSize);

  /** Returns the page of jobs {@code search} finds, newest first, by keyset on the id. */
  JobPage jobs(JobSearch search);

  /** Returns the queue's oldest pending job's due time and its jobs finished in the last hour. */
  QueueActivity activity(String queue);

  /** See {@link dev.fencing.postgres.PostgresAdmin#activities}. */
  List<QueueActivity> activities(Collection<String> queues);

  /** Returns the first {@code limit} owned resources, by name. */
  List<OwnershipRow> ownerships(int limit);

  /** Returns how many outbox messages wait for delivery, and since when. */
  OutboxBacklog outboxBacklog();

  /** Returns the job's priority, group and idempotency key, if there is a job with that id. */
  Optional<JobOptionsView> options(long jobId);
}
