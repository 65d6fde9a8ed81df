package dev.fencing;

import dev.fencing.internal.Batches;
import dev.fencing.internal.DiscoveredCodec;
import dev.fencing.internal.Validate;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The producer's role of a {@link FencedQueue}: adds jobs (plain, with options, under idempotency
 * keys), cancels them and reads one back. A service that only enqueues is handed this, not the
 * worker's or the operator's verbs ({@code PostgresFencing.producer()}).
 *
 * <p>Parameters are checked before anything is written; a bad one raises {@link
 * IllegalArgumentException} naming the parameter and the value, and changes nothing. A failure of
 * the store never escapes as the driver's or client's own type (see {@link FencedQueue}).
 *
 * @since 0.1
 */
public interface JobProducer {

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
   * @throws StoreUnavailableException if the store could not be reached or refused after the
   *     backend's retries; none was added
   */
  List<Long> enqueueAll(String queue, List<String> payloads, JobOptions options);

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
    return enqueueKeyed(queue, List.of(Batches.keyedJob(job))).getFirst();
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
   * @throws StoreUnavailableException if the store could not be reached or refused after the
   *     backend's retries; whether the jobs were added is unknown, and retrying with the same keys
   *     is safe
   */
  List<Enqueued> enqueueKeyed(String queue, List<KeyedJob> jobs);

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
   * @throws StoreUnavailableException if the store could not be reached or refused after the
   *     backend's retries; whether the job was cancelled is unknown, and cancelling again is safe
   */
  CancelResult cancel(long jobId, @Nullable String reason);

  /** Cancels a job without a reason: {@link #cancel(long, String)}. */
  default CancelResult cancel(long jobId) {
    return cancel(jobId, null);
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
   * Returns the codec that the typed {@code enqueue} methods encode payloads with: by default the
   * one {@link JobCodec#discover()} finds (fencing-jackson's, when it is on the class or module
   * path), looked for once. A backend's builder may set another.
   *
   * @since 0.1
   */
  default JobCodec codec() {
    return DiscoveredCodec.get();
  }

  /**
   * Adds a job of {@code type} with {@code payload} encoded by {@link #codec()}, claimable at once:
   * {@link #enqueue(String, String)} on the type's queue.
   *
   * @throws JobCodecException if the payload cannot be encoded; nothing written
   * @throws OutcomeUnknownException if the job may or may not have been added
   * @throws StoreUnavailableException if the store could not be reached or refused after the
   *     backend's retries; the job was not added
   * @since 0.1
   */
  default <P> long enqueue(JobType<P, ?> type, P payload) {
    return enqueue(type.queue(), type.encodePayload(codec(), payload));
  }

  /**
   * Adds a job of {@code type} that waits and ranks as {@code options} say: {@link #enqueue(String,
   * String, JobOptions)} with the payload encoded by {@link #codec()}.
   *
   * @throws JobCodecException if the payload cannot be encoded; nothing written
   * @since 0.1
   */
  default <P> long enqueue(JobType<P, ?> type, P payload, JobOptions options) {
    return enqueue(type.queue(), type.encodePayload(codec(), payload), options);
  }

  /**
   * Adds jobs of {@code type} in one round trip, all or none: {@link #enqueueAll(String, List,
   * JobOptions)} with each payload encoded by {@link #codec()}.
   *
   * @throws JobCodecException if a payload cannot be encoded; nothing written
   * @since 0.1
   */
  default <P> List<Long> enqueueAll(
      JobType<P, ?> type, List<? extends P> payloads, JobOptions options) {
    java.util.Objects.requireNonNull(payloads, "payloads");
    JobCodec codec = codec();
    List<String> encoded = new java.util.ArrayList<>(payloads.size());
    for (P payload : payloads) {
      encoded.add(type.encodePayload(codec, payload));
    }
    return enqueueAll(type.queue(), encoded, options);
  }

  /**
   * Adds a job of {@code type} under the idempotency key {@code key}, unless the queue already
   * holds a job with that key: {@link #enqueue(String, KeyedJob)} with the payload encoded by
   * {@link #codec()}. Safe to retry after any failure.
   *
   * @throws JobCodecException if the payload cannot be encoded; nothing written
   * @since 0.1
   */
  default <P> Enqueued enqueue(JobType<P, ?> type, String key, P payload, JobOptions options) {
    return enqueue(type.queue(), new KeyedJob(key, type.encodePayload(codec(), payload), options));
  }

  /**
   * Returns the job's result decoded as {@code type}'s result, if the job completed; empty if there
   * is no such job or it has not completed.
   *
   * @throws JobCodecException if the stored result does not decode as the type's result
   * @since 0.1
   */
  default <R> Optional<R> result(JobType<?, R> type, long jobId) {
    return find(jobId)
        .filter(job -> job.state() == JobState.COMPLETED && job.result() != null)
        .map(job -> type.decodeResult(codec(), job.result()));
  }
}
