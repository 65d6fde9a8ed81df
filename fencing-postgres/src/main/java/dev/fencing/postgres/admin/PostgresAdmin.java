package dev.fencing.postgres.admin;

import dev.fencing.CancelResult;
import dev.fencing.StoreUnavailableException;
import dev.fencing.postgres.PostgresFencing;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The operators' view of one schema, from {@link PostgresFencing#admin()}: list queues, show a job
 * with its epoch history, requeue, fail or cancel a job, purge old finished jobs.
 *
 * <pre>{@code
 * PostgresAdmin admin = PostgresFencing.builder(dataSource).schema("jobs").install(false).build().admin();
 * admin.queues(false).forEach(System.out::println);
 * }</pre>
 *
 * <p>{@link PostgresFencing#admin()} checks that the schema holds the fencing tables of this
 * version. Changes are compare-and-sets on the job's state and never lower or bump an epoch, so a
 * claim after a requeue takes a larger epoch than any before it, and the holder of a job failed
 * here is refused at its next commit or renewal. Immutable and safe for concurrent use.
 *
 * @since 0.1
 */
public interface PostgresAdmin {

  /** Jobs deleted per transaction by {@link #purge}. */
  int PURGE_BATCH = 1_000;

  /** Returns the schema this admin reads and changes. */
  String schema();

  /**
   * Returns every queue with pending, running or failed jobs, by name, with its counts. Names and
   * counts come from the partial indexes of those states; completed jobs are counted only when
   * {@code countCompleted}, by one scan of the table (it may hold millions of completed rows), and
   * a queue whose jobs all completed is then listed too.
   *
   * @throws StoreUnavailableException if the database failed after the transient retries
   */
  List<QueueSummary> queues(boolean countCompleted);

  /**
   * Returns the job with that id: its row, who held its last 16 epochs, its outbox messages.
   *
   * @throws IllegalArgumentException if {@code jobId} is not positive
   */
  Optional<JobDetails> job(long jobId);

  /**
   * Returns the job's claims, newest first, and its recorded refused writes, newest first. The
   * append-only engine keeps every claim with its owner, lease and end; the update-in-place engine
   * only the owners of the last 16 ({@link JobHistory#claimsComplete} is then false), with when and
   * how only for the current one.
   *
   * @throws IllegalArgumentException if {@code jobId} is not positive
   * @throws StoreUnavailableException if the database failed after the transient retries
   */
  Optional<JobHistory> history(long jobId);

  /**
   * Puts a failed job back to pending, claimable now, attempts counted from zero; its epoch is
   * kept, so the next claim takes a larger one. Refuses any other state: a completed job already
   * had its effects (enqueue a new job instead), a pending or running one needs no requeue. Refuses
   * a cancelled job too: its next epoch is its cancel's fence, which receivers may already hold.
   *
   * @throws IllegalArgumentException if {@code jobId} is not positive
   */
  AdminChange requeue(long jobId);

  /**
   * Ends a pending or running job failed with {@code reason} (kept as its last error, cut to 4,000
   * characters). A running job's holder is refused at its next complete, fail, renew or release.
   * Refuses a completed or failed job.
   *
   * @throws IllegalArgumentException if {@code jobId} is not positive or {@code reason} is blank;
   *     nothing is written
   */
  AdminChange fail(long jobId, String reason);

  /**
   * Cancels a pending or running job, as {@link dev.fencing.FencedQueue#cancel(long, String)} does:
   * it ends failed ({@code "cancelled: <reason>"}), its holder's lease is ended, and every lease it
   * was handed out under is refused as {@link dev.fencing.FencedOutcome.Cancelled}. A cancelled job
   * is never requeued ({@link #requeue} refuses it).
   *
   * @param reason why, or null; cut to 4,000 characters
   * @throws IllegalArgumentException if {@code jobId} is not positive or {@code reason} is blank;
   *     nothing is written
   * @throws StoreUnavailableException if the database failed after the transient retries; whether
   *     the job was cancelled is unknown, and cancelling again is safe
   */
  CancelResult cancel(long jobId, @Nullable String reason);

  /**
   * Deletes completed and failed jobs that finished more than {@code olderThan} ago (database
   * clock), {@value #PURGE_BATCH} per transaction; jobs with an undelivered outbox message are
   * kept, delivered messages go with their job.
   *
   * @param queue only this queue, or every queue when null
   * @return how many jobs were deleted
   * @throws IllegalArgumentException if {@code olderThan} is not between 1 min and 3650 days or
   *     {@code queue} is not a plain identifier; nothing is deleted
   */
  long purge(Duration olderThan, @Nullable String queue);

  /**
   * Returns one page of the jobs {@code search} finds, newest (largest id) first: the next page is
   * {@code search.withAfterId(page.nextAfterId())}, read by the id (never by skipping rows), so a
   * page costs the same however deep it lies. Payloads and results are not read ({@link #job} has
   * them).
   *
   * @throws StoreUnavailableException if the database failed after the transient retries
   */
  JobPage jobs(JobSearch search);

  /**
   * Returns the queue's activity on the database clock: since when its oldest pending job has been
   * due, and how many of its jobs completed and failed in each 5-minute span of the last hour (read
   * from the index of finished jobs by finish time, which retention keeps short).
   *
   * @throws IllegalArgumentException if {@code queue} is not a plain identifier
   * @throws StoreUnavailableException if the database failed after the transient retries
   */
  QueueActivity activity(String queue);

  /**
   * Returns the {@link #activity} of {@code queues} and of every queue with a job finished in the
   * last hour, by name, reading the hour's finished jobs once for all of them (a dashboard's read;
   * {@link #activity} per queue reads them once per queue).
   *
   * @throws IllegalArgumentException if a queue is not a plain identifier
   * @throws StoreUnavailableException if the database failed after the transient retries
   */
  List<QueueActivity> activities(Collection<String> queues);

  /**
   * Returns the first {@code limit} owned resources ({@link PostgresFencing#ownership()}), by name,
   * each with whether its lease is valid on the database clock.
   *
   * @throws IllegalArgumentException if {@code limit} is not between 1 and 1000
   * @throws StoreUnavailableException if the database failed after the transient retries
   */
  List<OwnershipRow> ownerships(int limit);

  /**
   * Returns how many outbox messages wait for delivery, and when the oldest was written.
   *
   * @throws StoreUnavailableException if the database failed after the transient retries
   */
  OutboxBacklog outboxBacklog();

  /**
   * Returns the priority, group and idempotency key job {@code jobId} was enqueued with, or empty
   * if there is no such job.
   *
   * @throws IllegalArgumentException if {@code jobId} is not positive
   * @throws StoreUnavailableException if the database failed after the transient retries
   */
  Optional<JobOptionsView> options(long jobId);
}
