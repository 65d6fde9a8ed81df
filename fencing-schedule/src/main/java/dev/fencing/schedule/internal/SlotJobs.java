package dev.fencing.schedule.internal;

import dev.fencing.KeyedJob;
import dev.fencing.schedule.Schedule;
import java.time.Instant;

/** The job of one slot: its idempotency key and its payload. */
public final class SlotJobs {

  private SlotJobs() {}

  /** Returns {@code schedule:<name>@<slot>}, the slot in ISO-8601 UTC. */
  public static String key(String name, Instant slot) {
    return "schedule:" + name + "@" + slot;
  }

  /** Returns the job of {@code slot}. */
  public static KeyedJob job(Schedule schedule, Instant slot) {
    return new KeyedJob(
        key(schedule.name(), slot),
        "{\"schedule\": \""
            + schedule.name()
            + "\", \"slot\": \""
            + slot
            + "\", \"payload\": "
            + schedule.payload()
            + "}");
  }
}
