package dev.fencing;

import dev.fencing.internal.Validate;
import java.time.Instant;
import java.util.Objects;

/**
 * The right to act for one resource (an account, a partition), as an acquisition granted it. Its
 * epoch is strictly greater than every epoch ever handed out for that resource by the same
 * coordination backend, across owners, restarts and failovers: send it with every message and let
 * the receiver keep the newest per {@link #key()}.
 *
 * <p>Like a {@link Lease}, an ownership proves nothing by itself. The service may end it at any
 * moment (the lease ran out, the session expired), and a stalled owner learns of that only when it
 * wakes; the receiver's epoch check is what makes its late messages harmless.
 *
 * @param resource the resource's name: 1 to 200 ASCII letters, digits, {@code . _ : -}; not only
 *     digits, not {@code .} or {@code ..}
 * @param owner who acquired it: not blank, at most 200 characters, no NUL or unpaired surrogate
 * @param epoch the fencing token of this acquisition
 * @param expiresAt when the ownership ends unless renewed: on the service's clock where the service
 *     judges leases on a clock it reports (PostgreSQL), otherwise a conservative estimate on this
 *     JVM's clock, taken before the request was sent (etcd, ZooKeeper)
 * @since 0.1
 */
public record Ownership(String resource, String owner, Epoch epoch, Instant expiresAt) {

  /**
   * @throws IllegalArgumentException if {@code resource} or {@code owner} is not valid
   * @throws NullPointerException if any reference is null
   */
  public Ownership {
    Validate.resource(resource);
    Validate.owner(owner);
    Objects.requireNonNull(epoch, "epoch");
    Objects.requireNonNull(expiresAt, "expiresAt");
  }

  /**
   * Returns the key this resource is known by at a receiver: its name. A resource name is never a
   * decimal number, so it never collides with a job's key ({@link Lease#key()}), whose epochs come
   * from another source.
   */
  public String key() {
    return resource;
  }
}
