package dev.fencing;

import java.time.Duration;
import java.util.Optional;

/**
 * Ownership of named resources, with an epoch per acquisition from a coordination service
 * (PostgreSQL, etcd, ZooKeeper: pick a backend by picking its module). A producer acquires an
 * account or a partition, sends the ownership's epoch with every message, renews before the lease
 * runs out, and stops the moment a renewal reports the ownership {@link OwnershipRenewal.Lost
 * lost}. Receivers keep the newest epoch per resource and refuse older ones.
 *
 * <p><b>One source of epochs per receiver key.</b> Epochs are comparable only when they come from
 * the same source: a resource's epochs from one backend, a job's from its claims. Resource names
 * are never decimal numbers, so they cannot collide with job keys; keeping a resource on one
 * backend is the caller's part (a resource moved to another backend must start above the highest
 * epoch its receivers have seen).
 *
 * @since 0.1
 */
public interface ResourceOwnership extends AutoCloseable {

  /**
   * Acquires {@code resource} for {@code owner} if nobody holds it (a previous holder's lease ran
   * out or was released). The new epoch is strictly greater than every epoch this backend ever
   * handed out for the resource. A resource held by the same owner name is {@link Acquisition.Held
   * held} all the same: two processes may share a name.
   *
   * @param resource 1 to 200 ASCII letters, digits, {@code . _ : -}; not only digits, not {@code .}
   *     or {@code ..}
   * @param owner not blank, at most 200 characters, no NUL or unpaired surrogate
   * @param leaseLength how long the ownership lasts without a renewal, 1 ms to 24 h; a backend
   *     whose service grants coarser terms grants the next longer one it can and says so in {@link
   *     Ownership#expiresAt()}
   * @throws IllegalArgumentException naming the parameter and value that is not valid
   * @throws StoreUnavailableException if the service could not be reached or answered with an error
   *     after the backend's retries (etcd and ZooKeeper throw its subclass {@link
   *     CoordinationException}); whether the acquisition took effect is then unknown, and a later
   *     acquire is safe
   */
  Acquisition acquire(String resource, String owner, Duration leaseLength);

  /**
   * Extends {@code ownership} by {@code leaseLength} from now if it still holds.
   *
   * @return {@link OwnershipRenewal.Renewed}, or {@link OwnershipRenewal.Lost} with why, also when
   *     the service could not be reached ({@link OwnershipRenewal.Why#UNREACHABLE})
   * @throws IllegalArgumentException if {@code leaseLength} is out of range
   * @throws NullPointerException if {@code ownership} is null
   */
  OwnershipRenewal renew(Ownership ownership, Duration leaseLength);

  /**
   * Gives {@code ownership} up, so the next acquire need not wait for its lease to run out.
   *
   * @return {@link FencedOutcome.Accepted} (with {@code repeat} when the ownership had already
   *     ended and nobody newer holds the resource), or {@link FencedOutcome.Superseded} naming the
   *     newer epoch that holds it
   * @throws NullPointerException if {@code ownership} is null
   * @throws StoreUnavailableException if the service could not be reached after the backend's
   *     retries ({@link CoordinationException} from etcd and ZooKeeper); the ownership then ends
   *     when its lease runs out
   */
  FencedOutcome release(Ownership ownership);

  /**
   * Returns the resource's current holder, or empty if nobody holds it. A snapshot: it may have
   * changed by the time it returns.
   *
   * @throws IllegalArgumentException if {@code resource} is not a valid name
   * @throws StoreUnavailableException if the service could not be reached after the backend's
   *     retries ({@link CoordinationException} from etcd and ZooKeeper); nothing was read
   */
  Optional<Acquisition.Held> holder(String resource);

  /**
   * Closes the connection to the service (a backend on a caller's data source leaves it open);
   * ownerships it held end when their leases run out. Throws nothing.
   */
  @Override
  void close();
}
