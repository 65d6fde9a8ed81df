package dev.fencing.internal;

import dev.fencing.FencedOutbox;
import dev.fencing.KeyedJob;
import dev.fencing.Lease;
import dev.fencing.OutboxMessage;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The checks of the lists and batch sizes the API takes (jobs to enqueue, a commit's messages, a
 * relay's batch), with the messages of {@link Validate}. Apart from it because they name the API's
 * types, and those types validate through {@link Validate}. Internal: exported only to the fencing
 * modules, not an API.
 */
public final class Batches {

  private Batches() {}

  /**
   * Returns {@code job} if it is not null.
   *
   * @throws IllegalArgumentException if it is null
   */
  public static KeyedJob keyedJob(@Nullable KeyedJob job) {
    if (job == null) {
      throw new IllegalArgumentException("job must be a job, but was null");
    }
    return job;
  }

  /**
   * Returns {@code payloads} if it is a list (its items are checked where they are read).
   *
   * @throws IllegalArgumentException if it is null
   */
  public static List<String> payloads(@Nullable List<String> payloads) {
    if (payloads == null) {
      throw new IllegalArgumentException("payloads must be a list, but was null");
    }
    return payloads;
  }

  /**
   * Returns {@code jobs} if it holds 0 to {@value Validate#MAX_BATCH} keyed jobs, none null, no key
   * twice.
   *
   * @throws IllegalArgumentException naming the first offending index (and, for a repeated key, the
   *     index it repeats)
   */
  public static List<KeyedJob> keyedJobs(@Nullable List<KeyedJob> jobs) {
    if (jobs == null) {
      throw new IllegalArgumentException("jobs must be a list, but was null");
    }
    if (jobs.size() > Validate.MAX_BATCH) {
      throw new IllegalArgumentException(
          "jobs must hold at most " + Validate.MAX_BATCH + " jobs, but held " + jobs.size());
    }
    Map<String, Integer> seen = new HashMap<>();
    for (int i = 0; i < jobs.size(); i++) {
      KeyedJob job = jobs.get(i);
      if (job == null) {
        throw new IllegalArgumentException("jobs[" + i + "] must be a job, but was null");
      }
      Integer first = seen.putIfAbsent(job.key(), i);
      if (first != null) {
        throw new IllegalArgumentException(
            "jobs["
                + i
                + "].key repeats jobs["
                + first
                + "].key "
                + Validate.quote(job.key())
                + ": a key names one job");
      }
    }
    return jobs;
  }

  /**
   * Returns {@code messages} if it is a list of at most 100 messages, none null.
   *
   * @param parameter the parameter's name, for the message
   */
  public static List<OutboxMessage> messages(
      String parameter, @Nullable List<OutboxMessage> messages) {
    if (messages == null) {
      throw new IllegalArgumentException(parameter + " must be a list, but was null");
    }
    if (messages.size() > Validate.MAX_MESSAGES) {
      throw new IllegalArgumentException(
          parameter
              + " must hold at most "
              + Validate.MAX_MESSAGES
              + " messages, but held "
              + messages.size());
    }
    for (int i = 0; i < messages.size(); i++) {
      if (messages.get(i) == null) {
        throw new IllegalArgumentException(parameter + "[" + i + "] must not be null");
      }
    }
    return messages;
  }

  /** Returns {@code max} if it is between 1 and {@value FencedOutbox#MAX_RELAY}. */
  public static int relayMax(int max) {
    if (max < 1 || max > FencedOutbox.MAX_RELAY) {
      throw new IllegalArgumentException(
          "max must be between 1 and " + FencedOutbox.MAX_RELAY + ", but was " + max);
    }
    return max;
  }

  /**
   * A relay's loop, for every outbox: checks the parameters of {@link FencedOutbox#relay}, then
   * relays one message at a time by {@code one} (empty when no message is left to send) until none
   * is left or {@code max} were sent.
   *
   * @throws IllegalArgumentException naming a bad parameter and its value; nothing sent
   */
  public static List<FencedOutbox.Relayed> relay(
      String destination,
      FencedOutbox.Sender sender,
      int max,
      Supplier<Optional<FencedOutbox.Relayed>> one) {
    Validate.identifier("destination", destination);
    Objects.requireNonNull(sender, "sender");
    relayMax(max);
    List<FencedOutbox.Relayed> sent = new ArrayList<>();
    while (sent.size() < max) {
      Optional<FencedOutbox.Relayed> next = one.get();
      if (next.isEmpty()) {
        break;
      }
      sent.add(next.get());
    }
    return List.copyOf(sent);
  }

  /**
   * Checks the parameters of {@code FencedQueue.fail}: a lease, an error, and a retry delay as
   * {@link Validate#delay} takes it.
   *
   * @throws NullPointerException naming a null lease or error
   * @throws IllegalArgumentException naming a bad retry delay and its value
   */
  public static void failure(Lease lease, String error, Duration retryDelay) {
    finalFailure(lease, error);
    Validate.delay("retryDelay", retryDelay);
  }

  /**
   * Checks the parameters of {@code FencedQueue.failFinally}: a lease and an error.
   *
   * @throws NullPointerException naming a null lease or error
   */
  public static void finalFailure(Lease lease, String error) {
    Objects.requireNonNull(lease, "lease");
    Objects.requireNonNull(error, "error");
  }
}
