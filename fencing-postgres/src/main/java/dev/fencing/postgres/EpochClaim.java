package dev.fencing.postgres;
import java.time.Instant;
import org.jspecify.annotations.Nullable;
public record EpochClaim(long epoch, @Nullable String owner, @Nullable Instant claimedAt, @Nullable Instant leaseExpiresAt, String ended) {}
