package dev.fencing;

import dev.fencing.internal.Batches;
import dev.fencing.internal.Validate;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The worker's role of a {@link FencedQueue}: claims jobs under a lease, renews the lease, and
 * commits, fails or gives back each job with a compare-and-set on owner and epoch. Every claim
 * takes a new, larger epoch; leases are judged on the backend's clock, never the worker's. This is
 * what the runtime ({@code FencedWorkers}) needs ({@code PostgresFencing.consumer()}).
 *
 * <p>Parameters are checked before anything is written; a bad one raises {@link
 * IllegalArgumentException} naming the parameter and the value, and changes nothing. A failure of
 * the store never escapes as the driver's or client's own type (see {@link FencedQueue}).
 *
 * @since 0.1
 */
public interface JobConsumer {

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
   * <p>With no messages this is {@link #complete(Lease, String)}.
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
  FencedOutcome.Accepted complete(Lease lease, String result, List<OutboxMessage> messages);

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
   * Ends the job {@link JobState#FAILED} at once, whatever attempts it has left, keeping {@code
   * error} as its last error: for a job that can never succeed (a payload that does not decode, a
   * request the handler refuses). As {@link #fail} otherwise: a compare-and-set on owner and epoch,
   * nothing deleted, retrying with the same lease is accepted as a repeat. The job is not claimed
   * again unless an operator requeues it.
   *
   * @param error what went wrong, kept as the job's last error (cut to 4,000 characters)
   * @throws FencedOffException if the lease expired or a newer claim owns the job; nothing changed
   * @throws IllegalArgumentException naming a bad parameter and its value; nothing written
   * @throws StoreUnavailableException if the store could not be reached or refused after the
   *     backend's retries; whether the failure was recorded is unknown; failing again with the same
   *     lease is safe
   * @since 0.1
   */
  FencedOutcome.Accepted failFinally(Lease lease, String error);

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
}
