package dev.fencing.postgres.admin;

import java.time.Instant;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One outbox message a job's commit wrote, with its delivery outcome.
 *
 * @param idx its position in the commit's list, from 0
 * @param epoch the epoch of the lease whose commit wrote it
 * @param destination where the relay sends it
 * @param receiverKey the key the receiver fences on
 * @param createdAt when the commit wrote it (database clock)
 * @param deliveredAt when the receiver answered, null while undelivered
 * @param outcome the receiver's answer (accepted, repeat, superseded, ...), null while undelivered
 * @param wonEpoch the epoch that won, when superseded
 * @since 0.1
 */
public record OutboxEntry(
    int idx,
    long epoch,
    String destination,
    String receiverKey,
    Instant createdAt,
    @Nullable Instant deliveredAt,
    @Nullable String outcome,
    @Nullable Long wonEpoch) {

  /**
   * @throws NullPointerException if a required field is null
   */
  public OutboxEntry {
    Objects.requireNonNull(destination, "destination");
    Objects.requireNonNull(receiverKey, "receiverKey");
    Objects.requireNonNull(createdAt, "createdAt");
  }
}
