package dev.fencing.postgres;

import java.time.Instant;
import org.jspecify.annotations.Nullable;

public record OwnershipRow(
    String resource,
    @Nullable String owner,
    long epoch,
    @Nullable Instant leaseExpiresAt,
    boolean valid) {}
