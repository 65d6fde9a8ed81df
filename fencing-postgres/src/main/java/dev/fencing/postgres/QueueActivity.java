package dev.fencing.postgres;

import java.time.Instant;
import java.util.List;
import org.jspecify.annotations.Nullable;

public record QueueActivity(
    String queue, @Nullable Instant oldestPendingSince, List<Bucket> lastHour) {
  public record Bucket(Instant start, long completed, long failed) {}
}
