package dev.fencing.postgres.admin;

import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * One owned resource as {@link PostgresAdmin#ownerships} lists it.
 *
 * @param resource the resource's name
 * @param owner its holder, or its last holder once the lease ran out or was released
 * @param epoch its fencing token, bumped by every acquisition
 * @param leaseExpiresAt when the lease runs (or ran) out
 * @param valid whether the lease has not run out, on the database clock
 * @since 0.1
 */
public record OwnershipRow(
    String resource,
    @Nullable String owner,
    long epoch,
    @Nullable Instant leaseExpiresAt,
    boolean valid) {}
