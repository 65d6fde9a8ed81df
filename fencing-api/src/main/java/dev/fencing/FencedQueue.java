package dev.fencing;

import dev.fencing.internal.Batches;
import dev.fencing.internal.Validate;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * A job queue whose every claim takes a new, larger epoch and whose every commit is a
 * compare-and-set on owner and epoch. Leases are judged on the backend's clock, never the worker's.
 *
 * <p>Parameters are checked before anything is written; a bad one raises {@link
 * IllegalArgumentException} naming the parameter and the value, and changes nothing.
 *
 * <p>A failure of the store never escapes as the driver's or client's own type: a store that cannot
 * be reached or refuses after the backend's retries is a {@link StoreUnavailableException} (the
 * failure is its cause), a store without the backend's tables a {@link
 * SchemaNotInstalledException}. Each method says what such a failure leaves behind.
 */
public interface FencedQueue {

  /**
   * Adds a job, claimable at once.
   *
   * <p>Without a key, a lost acknowledgement cannot be resolved: if the connection drops after the
   * commit was sent, this throws {@link OutcomeUnknownException}, and retrying may add the job
   * twice. Use {@link #enqueue(String, KeyedJob)} to make retries safe.
   *
   * @param queue a plain identifier ({@code [a-z_][a-z0-9_]{0,62}})
   * @param payload the job's input, JSON
   * @return the new job's id
   * @throws OutcomeUnknownException if the job may or may not have been added
   * @throws IllegalArgumentException naming a bad parameter and its value; nothing written
   * @throws StoreUnavailableException if the store could not be reached or refused after the
   *     backend's retries; the job was not added
   */
  long enqueue(String queue, String payload);

  /**
   * Adds jobs in one round trip, all or none.
   *
   * @return the new jobs' ids, in the order of {@code payloads}
   * @throws OutcomeUnknownException if the jobs may or may not have been added (all or none)
   * @throws IllegalArgumentException naming a bad parameter and its value; nothing written
   * @throws StoreUnavailableException if the store could not be reached or refused after the
   *     backend's retries; none was added
   */
  List<Long> enqueueAll(String queue, List<String> payloads);

  /**
   * Adds a job that waits and ranks as {@code options} say (see {@link JobOptions}): claimable from
   * a time on or after a delay, on the store's clock, and at a priority. As {@link #enqueue(String,
   * String)} otherwise.
   *
   * @throws OutcomeUnknownException if the job may or may not have been added
   * @throws IllegalArgumentException naming a bad parameter and its value; nothing written
   * @throws UnsupportedOperationException if {@code options} are not {@link JobOptions#DEFAULT} and
   *     the backend has no options (the default)
   * @throws StoreUnavailableException if the store could not be reached or refused after the
   *     backend's retries; the job was not added
   */
  default long enqueue(String queue, String payload, JobOptions options) {
    return enqueueAll(queue, List.of(Validate.json("payload", payload)), options).getFirst();
  }

  /**
   * Adds jobs in one round trip, all or none, each waiting and ranking as {@code options} say. As
   * {@link #enqueueAll(String, List)} otherwise.
   *
   * @throws OutcomeUnknownException if the jobs may or may not have been added (all or none)
   * @throws IllegalArgumentException naming a bad parameter and its value; nothing written
   * @throws UnsupportedOperationException if {@code options} are not {@link JobOptions#DEFAULT} and
   *     the backend has no options (the default)
   * @throws StoreUnavailableException if the store could not be reached or refused after the
   *     backend's retries; none was added
   */
  default List<Long> enqueueAll(String queue, List<String> payloads, JobOptions options) {
    if (options == null) {
      throw new IllegalArgumentException("options must not be null; use JobOptions.DEFAULT");
    }
    if (options.isDefault()) {
      return enqueueAll(queue, payloads);
    }
    Validate.identifier("queue", queue);
    throw new UnsupportedOperationException(
        getClass().getName() + " has no job options: it cannot delay or rank jobs");
  }

  /**
   * Adds a job under an idempotency key, unless its queue already holds a job with that key: then
   * nothing is written and the existing job's id is returned. Safe to retry after any failure, also
   * when two producers race on one key (one job results). See {@link #enqueueKeyed}.
   *
   * @throws IllegalArgumentException if the key is taken by a job with a different payload, or a
   *     parameter is bad; nothing written
   * @throws StoreUnavailableException if the store could not be reached or refused after the
   *     backend's retries; whether the job was added is unknown, and retrying with the same key is
   *     safe
   */
  default Enqueued enqueue(String queue, KeyedJob job) {
    java.util.Objects.requireNonNull(job, "job");
    return enqueueKeyed(queue, List.of(job)).getFirst();
  }

  /**
   * Adds jobs under idempotency keys in one round trip, all or none: each key already held by a job
   * of the queue returns that job's id and writes nothing for it. A call whose acknowledgement was
   * lost is resolved by its keys (retried by the backend, which then reports the jobs its first try
   * wrote as created), so the caller gets ids, never a duplicate.
   *
   * <p>A key is remembered as long as its job exists: finished jobs are kept until retention
   * removes them, and after that the key may name a new job.
   *
   * <p>The new jobs of one call need not be numbered, or claimed, in the order of {@code jobs}: a
   * backend may write them in the order of their keys, so that producers racing on the same keys in
   * different orders cannot deadlock (PostgreSQL does).
   *
   * @param jobs at most 10,000, with distinct keys
   * @return one outcome per job, in the order of {@code jobs}
   * @throws IllegalArgumentException if a key appears twice in {@code jobs}, or a key is taken by a
   *     job whose payload differs (payloads are compared as the store compares JSON values), naming
   *     the job's index and key; nothing written
   * @throws UnsupportedOperationException if the backend has no idempotency keys (the default)
   * @throws StoreUnavailableException if the store could not be reached or refused after the
   *     backend's retries; whether the jobs were added is unknown, and retrying with the same keys
   *     is safe
   */
  default List<Enqueued> enqueueKeyed(String queue, List<KeyedJob> jobs) {
    Validate.identifier("queue", queue);
    Batches.keyedJobs(jobs);
    throw new UnsupportedOperationException(
        getClass().getName() + " has no idempotency keys: it cannot enqueue keyed jobs");
  }

  /**
   * Claims one job: of the claimable jobs with the highest priority, the one that has been ready
   * longest (see {@link #claimBatch}). The claim bumps the job's epoch and sets a lease of {@code
   * leaseLength} from the backend's clock. The default is {@link #claimBatch} with a batch of one.
   *
   * @param owner who claims, not blank, at most 200 characters
   * @param leaseLength between 1 ms and 24 h
   * @return the job, or empty when no job is claimable
   * @throws IllegalArgumentException naming a bad parameter and its value; nothing written
   * @throws StoreUnavailableException if the store could not be reached or refused after the
   *     backend's retries; a claim that landed unseen is handed out again once its lease runs out
   */
  default Optional<Job> claim(String queue, String owner, Duration leaseLength) {
    List<Job> jobs = claimBatch(queue, owner, leaseLength, 1);
    return jobs.isEmpty() ? Optional.empty() : Optional.of(jobs.getFirst());
  }

  /**
   * Claims up to {@code batchSize} jobs in one statement, each as {@link #claim} would.
   *
   * <p>Claimable work is served by priority first ({@link JobOptions}: higher first; a job whose
   * lease ran out is taken over at priority 0), then oldest-ready-first across both kinds, then by
   * id: a due pending job is ready since its {@code runAt}, a running job whose lease ran out since
   * the lease's expiry. At one priority neither kind can starve the other; the order across
   * priorities is strict. Every claim counts one attempt, a reclaim after expiry included, so
   * attempts never exceed the job's maximum: a job whose lease runs out after its last attempt is
   * not handed out again but ends {@link JobState#FAILED} (its epoch unchanged, nothing deleted,
   * its last error saying how often the lease ran out). Only the jobs claimed are returned.
   *
   * @param batchSize between 1 and 10,000
   * @return the jobs claimed, possibly none
   * @throws IllegalArgumentException naming a bad parameter and its value; nothing written
   * @throws StoreUnavailableException if the store could not be reached or refused after the
   *     backend's retries; claims that landed unseen are handed out again once their leases run out
   */
  List<Job> claimBatch(String queue, String owner, Duration leaseLength, int batchSize);

  /**
   * Extends a lease (a heartbeat) to {@code leaseLength} from now on the backend's clock.
   *
   * @return the lease with its new expiry
   * @throws FencedOffException if the lease expired or a newer claim owns the job; nothing changed
   * @throws IllegalArgumentException naming a bad parameter and its value; nothing written
   * @throws StoreUnavailableException if the store could not be reached or refused after the
   *     backend's retries; whether the lease was extended is unknown; renewing again is safe
   */
  Lease renew(Lease lease, Duration leaseLength);

  /**
   * Renews many leases (a heartbeat for everything in flight), each as {@link #renew} would, in as
   * few round trips as the backend can (one statement on PostgreSQL). Each outcome is matched on
   * the whole lease.
   *
   * @param leaseLength between 1 ms and 24 h, from now on the backend's clock
   * @return one outcome per lease, in the same order
   * @throws IllegalArgumentException naming a bad parameter and its value; nothing written
   * @throws StoreUnavailableException if the store could not be reached or refused after the
   *     backend's retries; whether each lease was extended is unknown; renewing again is safe
   */
  default List<Renewal> renewAll(List<Lease> leases, Duration leaseLength) {
    java.util.Objects.requireNonNull(leases, "leases");
    Validate.leaseLength(leaseLength);
    List<Renewal> renewals = new java.util.ArrayList<>(leases.size());
    for (Lease lease : leases) {
      try {
        renewals.add(new Renewal.Renewed(renew(lease, leaseLength)));
      } catch (FencedOffException e) {
        renewals.add(new Renewal.Lost(lease, e.refusal()));
      }
    }
    return renewals;
  }

  /**
   * Commits the job's result, if {@code lease} still owns it. Retrying the same commit with the
   * same lease (for example after the connection dropped and the acknowledgement was lost) is
   * accepted as a repeat.
   *
   * @param result the job's result, JSON that the store accepts
   * @throws FencedOffException if the lease expired or a newer claim owns the job; the result has
   *     been dropped
   * @throws IllegalArgumentException if the store does not accept {@code result}; nothing changed
   * @throws StoreUnavailableException if the store could not be reached or refused after the
   *     backend's retries; whether the commit landed is unknown; committing again with the same
   *     lease is safe (a landed one is accepted as a repeat)
   */
  FencedOutcome.Accepted complete(Lease lease, String result);

  /**
   * Commits the job's result together with {@code messages} to send, if {@code lease} still owns
   * the job: the messages are written in the same transaction as the compare-and-set, so a refused
   * commit writes none, and a retried commit accepted as a repeat writes none again. A {@link
   * FencedOutbox} relay sends them afterwards, at the lease's epoch.
   *
   * <p>With no messages this is {@link #complete(Lease, String)}. A backend without an outbox
   * throws {@link UnsupportedOperationException} for a non-empty list.
   *
   * @param messages at most 100, none null
   * @throws FencedOffException if the lease expired or a newer claim owns the job; neither the
   *     result nor the messages were written
   * @throws IllegalArgumentException if a parameter is bad or the store does not accept the result
   *     or a message's payload, naming it; nothing changed
   * @throws StoreUnavailableException if the store could not be reached or refused after the
   *     backend's retries; whether the commit (with its messages) landed is unknown; committing
   *     again with the same lease is safe and writes no message twice
   */
  default FencedOutcome.Accepted complete(
      Lease lease, String result, List<OutboxMessage> messages) {
    Batches.messages("messages", messages);
    if (messages.isEmpty()) {
      return complete(lease, result);
    }
    throw new UnsupportedOperationException(
        getClass().getName() + " has no outbox: it cannot commit messages");
  }

  /**
   * Commits many results, each as {@link #complete} would, in as few round trips as the backend can
   * (one statement on PostgreSQL). Each outcome is matched on the whole lease (job, owner and
   * epoch): two leases of one job in one batch get their own truths. Refusals are returned, not
   * thrown, so that one zombie's lease does not hide the others' outcomes; a result the store will
   * not take fails alone as {@link CommitOutcome.Invalid}, and the rest commit.
   *
   * @return one outcome per completion, in the same order
   * @throws IllegalArgumentException if {@code completions} is null or holds a null
   * @throws StoreUnavailableException if the store could not be reached or refused after the
   *     backend's retries; whether each commit landed is unknown; committing again with the same
   *     leases is safe
   */
  default List<CommitOutcome> completeAll(List<Completion> completions) {
    java.util.Objects.requireNonNull(completions, "completions");
    List<CommitOutcome> outcomes = new java.util.ArrayList<>(completions.size());
    for (int i = 0; i < completions.size(); i++) {
      Completion completion = completions.get(i);
      Lease lease = completion.lease();
      try {
        outcomes.add(complete(lease, completion.result(), completion.messages()));
      } catch (FencedOffException e) {
        outcomes.add(e.refusal());
      } catch (IllegalArgumentException e) {
        outcomes.add(
            new CommitOutcome.Invalid(
                lease.key(),
                lease.epoch(),
                new IllegalArgumentException("completions[" + i + "]: " + e.getMessage(), e)));
      }
    }
    return outcomes;
  }

  /**
   * A result to commit under a lease, with the outbox messages to write with it (see {@link
   * #complete(Lease, String, List)}).
   *
   * @param result JSON
   * @param messages at most 100, none null; copied
   */
  record Completion(Lease lease, String result, List<OutboxMessage> messages) {
    /**
     * @throws NullPointerException if the lease or the result is null
     * @throws IllegalArgumentException if {@code messages} is null, too long or holds a null
     */
    public Completion {
      java.util.Objects.requireNonNull(lease, "lease");
      java.util.Objects.requireNonNull(result, "result");
      messages = List.copyOf(Batches.messages("messages", messages));
    }

    /** A result to commit without messages. */
    public Completion(Lease lease, String result) {
      this(lease, result, List.of());
    }
  }

  /**
   * Records a failure. The job goes back to pending, claimable after {@code retryDelay}, until its
   * attempts run out; then it ends failed. Nothing is deleted.
   *
   * @param error what went wrong, kept as the job's last error (cut to 4,000 characters)
   * @param retryDelay between zero and 24 h
   * @throws FencedOffException if the lease expired or a newer claim owns the job; nothing changed
   * @throws IllegalArgumentException naming a bad parameter and its value; nothing written
   * @throws StoreUnavailableException if the store could not be reached or refused after the
   *     backend's retries; whether the failure was recorded is unknown; failing again with the same
   *     lease is safe
   */
  FencedOutcome.Accepted fail(Lease lease, String error, Duration retryDelay);

  /**
   * Gives the job back, claimable at once, without counting a failure against it.
   *
   * @throws FencedOffException if the lease expired or a newer claim owns the job; nothing changed
   * @throws IllegalArgumentException naming a bad parameter and its value; nothing written
   * @throws StoreUnavailableException if the store could not be reached or refused after the
   *     backend's retries; whether the job was given back is unknown; releasing again with the same
   *     lease is safe
   */
  FencedOutcome.Accepted release(Lease lease);

  /**
   * Cancels a job that has not ended: it ends {@link JobState#FAILED} (its last error says it was
   * cancelled, with {@code reason}) and is never handed out again.
   *
   * <ul>
   *   <li>A pending job (waiting, delayed, or waiting for a retry) ends at once.
   *   <li>A running job's lease is ended: every later renewal, commit, failure or release of that
   *       lease is refused with {@link FencedOutcome.Cancelled}, and so is every lease of the job
   *       that ran out before. A retry of a commit that landed before the cancel is still accepted
   *       as a repeat: it had already counted, and the cancel found the job ended. (A failure or
   *       release that landed before leaves the job pending, so a cancel then ends it; a retry of
   *       that failure or release is refused as cancelled.) The holder is not stopped by the store;
   *       the runtime ({@code FencedWorkers}) interrupts its handler when its next heartbeat is
   *       refused, within one heartbeat interval. Its calls to receivers are refused once the
   *       receiver was raised to the returned {@link CancelResult.Cancelled#fence} epoch ({@link
   *       FencedReceiver#fence}).
   *   <li>A job that already ended is left as it is ({@link CancelResult.AlreadyEnded}).
   * </ul>
   *
   * <p>Cancelling again is safe: a job cancelled before answers {@link CancelResult.Cancelled} with
   * {@code repeat} true, so a retry after a lost acknowledgement learns the truth.
   *
   * @param jobId the job
   * @param reason why, kept in the job's last error (cut to 4,000 characters); may be null
   * @throws IllegalArgumentException if {@code jobId} is not positive or {@code reason} is blank;
   *     nothing written
   * @throws UnsupportedOperationException if the backend cannot cancel (the default)
   * @throws StoreUnavailableException if the store could not be reached or refused after the
   *     backend's retries; whether the job was cancelled is unknown, and cancelling again is safe
   */
  default CancelResult cancel(long jobId, @Nullable String reason) {
    Validate.jobId(jobId);
    throw new UnsupportedOperationException(getClass().getName() + " cannot cancel jobs");
  }

  /** Cancels a job without a reason: {@link #cancel(long, String)}. */
  default CancelResult cancel(long jobId) {
    return cancel(jobId, null);
  }

  /**
   * Returns the limits the store keeps for {@code queue}: {@link QueueLimits#NONE} when none were
   * set.
   *
   * @throws IllegalArgumentException if {@code queue} is not a plain identifier
   * @throws UnsupportedOperationException if the backend has no limits (the default)
   * @throws StoreUnavailableException if the store could not be reached or refused after the
   *     backend's retries; nothing was read
   */
  default QueueLimits limits(String queue) {
    Validate.identifier("queue", queue);
    throw new UnsupportedOperationException(getClass().getName() + " has no queue limits");
  }

  /**
   * Sets the limits of {@code queue} for every process that claims from it ({@link
   * QueueLimits#NONE} removes them). The next claim obeys them; a lowered running limit ends no
   * lease: no claim succeeds until enough of the running jobs have ended or their leases ran out.
   * On PostgreSQL the limits are promised once every process claiming from the queue runs a library
   * of schema version 2 or later (docs/UPGRADING.md).
   *
   * @return the limits as they were before
   * @throws IllegalArgumentException if {@code queue} is not a plain identifier or {@code limits}
   *     is null; nothing written
   * @throws UnsupportedOperationException if the backend has no limits (the default)
   * @throws StoreUnavailableException if the store could not be reached or refused after the
   *     backend's retries; whether the limits were set is unknown, and setting them again is safe
   */
  default QueueLimits setLimits(String queue, QueueLimits limits) {
    Validate.identifier("queue", queue);
    if (limits == null) {
      throw new IllegalArgumentException("limits must not be null; use QueueLimits.NONE");
    }
    throw new UnsupportedOperationException(getClass().getName() + " has no queue limits");
  }

  /**
   * Returns how many of the queue's jobs wait for one of its {@link QueueLimits limits}, for a
   * meter ("jobs waiting for a limit"): while a limit of the whole queue holds (its running limit
   * is reached, or its rate has no token left), every pending job of the queue, delayed ones too;
   * otherwise the jobs of groups that are due but held back by their group's limits (its running
   * limit, its rate, FIFO behind a head). 0 for a queue without limits. Read without a lock: a
   * moment's view, not a promise about the next claim.
   *
   * @throws IllegalArgumentException if {@code queue} is not a plain identifier
   * @throws UnsupportedOperationException if the backend has no limits (the default)
   * @throws StoreUnavailableException if the store could not be reached or refused after the
   *     backend's retries; nothing was read
   */
  default long waitingForLimits(String queue) {
    Validate.identifier("queue", queue);
    throw new UnsupportedOperationException(getClass().getName() + " has no queue limits");
  }

  /**
   * Returns the job's row as it is now, or empty if there is no such job.
   *
   * @throws IllegalArgumentException if {@code jobId} is not positive
   * @throws StoreUnavailableException if the store could not be reached or refused after the
   *     backend's retries; nothing was read
   */
  Optional<JobSnapshot> find(long jobId);

  /**
   * Waits until a job may have become claimable on {@code queue}, or until {@code timeout} passes,
   * whichever comes first. An idle worker calls it after a claim came back empty, then claims
   * again.
   *
   * <p>It is a hint, never a promise: a {@code true} return may be spurious (another worker may
   * have claimed the job already, or the signal was for a job not yet due), and a {@code false}
   * return says nothing about the queue: signals can be lost (a dropped connection, a restart), a
   * job whose lease ran out gives none, and a job enqueued just before the first call of a thread
   * may give none. Callers therefore claim again after every return. A signal that arrives between
   * two calls of one thread for one queue ends the second call at once, so a worker that loops
   * claim, wait, claim misses no signal that arrived while it claimed.
   *
   * <p>The default has no signals: it sleeps {@code timeout} and returns {@code false}, so a caller
   * polls. See {@link #signalsWork()}. A store that cannot be reached loses signals but does not
   * make this throw: it returns {@code false} after {@code timeout}.
   *
   * @param queue a plain identifier ({@code [a-z_][a-z0-9_]{0,62}})
   * @param timeout between zero and 24 h
   * @return {@code true} if woken by a signal before {@code timeout}, {@code false} if the timeout
   *     passed
   * @throws InterruptedException if the calling thread is interrupted while waiting
   * @throws IllegalArgumentException naming a bad parameter and its value
   */
  default boolean awaitWork(String queue, Duration timeout) throws InterruptedException {
    Validate.identifier("queue", queue);
    Validate.delay("timeout", timeout);
    Thread.sleep(timeout);
    return false;
  }

  /**
   * Whether {@link #awaitWork} can end before its timeout because work arrived: {@code true} if
   * this queue signals new work (so a worker may wait long between polls), {@code false} if it
   * merely sleeps (the default), so a worker should poll often. Reads no store and throws nothing.
   */
  default boolean signalsWork() {
    return false;
  }

  /**
   * Returns how many of the queue's jobs are pending, running and failed, read in one statement.
   *
   * @param queue a plain identifier ({@code [a-z_][a-z0-9_]{0,62}}); a queue with no jobs has depth
   *     zero
   * @throws UnsupportedOperationException if the backend cannot count (the default)
   * @throws IllegalArgumentException if {@code queue} is not a plain identifier
   * @throws StoreUnavailableException if the store could not be reached or refused after the
   *     backend's retries; nothing was read
   */
  default QueueDepth depth(String queue) {
    Validate.identifier("queue", queue);
    throw new UnsupportedOperationException(getClass().getName() + " cannot count a queue's jobs");
  }
}
