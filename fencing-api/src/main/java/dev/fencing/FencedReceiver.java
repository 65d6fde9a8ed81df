package dev.fencing;

import java.util.Optional;

/**
 * An external system that takes fenced calls. It keeps the newest epoch per key (a job id, an
 * account, a partition): a newer epoch is accepted and supersedes, the same epoch again is accepted
 * (a worker may retry its own call), and an older one is refused with the epoch that won.
 *
 * <p>A key's epochs must all come from one source: a job's claims ({@link #deliver(Lease, String)})
 * or a resource's acquisitions ({@link #deliver(Ownership, String)}, see {@link
 * ResourceOwnership}). Two jobs writing one account at their own job epochs would wrongly refuse or
 * overwrite each other.
 *
 * <p>A receiver backed by a store raises its failures as {@link StoreUnavailableException} (or
 * {@link SchemaNotInstalledException} when its tables are missing), never as the driver's or
 * client's own type.
 *
 * @since 0.1
 */
public interface FencedReceiver {

  /**
   * Delivers {@code payload} for {@code key} at {@code epoch}.
   *
   * @param key not blank, at most 500 characters
   * @param payload JSON
   * @return {@link FencedOutcome.Accepted}, or {@link FencedOutcome.Superseded} naming the newer
   *     epoch that won; a refused payload is dropped
   * @throws IllegalArgumentException naming a bad key, epoch or payload (a payload the store does
   *     not accept included); nothing written
   * @throws StoreUnavailableException if the store could not be reached or refused after the
   *     receiver's retries; whether the delivery was written is unknown, and delivering it again at
   *     the same epoch is safe
   */
  FencedOutcome deliver(String key, Epoch epoch, String payload);

  /**
   * Delivers {@code payload} for the job {@code lease} claimed, at the lease's epoch: the key is
   * the job id, so its epochs all come from the job's claims.
   *
   * @throws IllegalArgumentException as {@link #deliver(String, Epoch, String)}
   * @throws StoreUnavailableException as {@link #deliver(String, Epoch, String)}
   */
  default FencedOutcome deliver(Lease lease, String payload) {
    return deliver(lease.key(), lease.epoch(), payload);
  }

  /**
   * Delivers {@code payload} for the resource {@code ownership} holds, at its epoch: the key is the
   * resource's name, so its epochs all come from the resource's acquisitions.
   *
   * @throws IllegalArgumentException as {@link #deliver(String, Epoch, String)}
   * @throws StoreUnavailableException as {@link #deliver(String, Epoch, String)}
   */
  default FencedOutcome deliver(Ownership ownership, String payload) {
    return deliver(ownership.key(), ownership.epoch(), payload);
  }

  /**
   * Raises {@code key} to {@code epoch} without a delivery, so that every later delivery at an
   * older epoch is refused as {@link FencedOutcome.Superseded}: what a cancel does to the receivers
   * of a job whose holder may still be running (see {@link CancelResult.Cancelled#fence}). The
   * newest accepted payload is kept (its receipt then names {@code epoch}); a key never delivered
   * to gets the JSON payload {@code null}. Fencing again at the same epoch is accepted as a repeat.
   *
   * @return {@link FencedOutcome.Accepted}, or {@link FencedOutcome.Superseded} if the key already
   *     holds a newer epoch (which fences all the same)
   * @throws IllegalArgumentException naming a bad key or epoch; nothing written
   * @throws StoreUnavailableException if the store could not be reached or refused after the
   *     receiver's retries; whether the key was raised is unknown, and fencing again is safe
   */
  FencedOutcome fence(String key, Epoch epoch);

  /**
   * Returns the newest accepted delivery for {@code key}, or empty if none.
   *
   * @throws IllegalArgumentException if {@code key} is not a valid key
   * @throws StoreUnavailableException if the store could not be reached or refused after the
   *     receiver's retries; nothing was read
   */
  Optional<Receipt> newest(String key);

  /**
   * The newest delivery a receiver accepted for a key.
   *
   * @param payload the payload of that delivery, JSON
   */
  record Receipt(String key, Epoch epoch, String payload) {}
}
