package dev.fencing.micrometer.internal;

import dev.fencing.runtime.FencedWorkers;
import dev.fencing.runtime.RelayStats;
import io.micrometer.core.instrument.Tags;

/**
 * What the maintenance and the relay of a {@link FencedWorkers} did, as function counters read from
 * its stats. They belong to the workers, not to a queue's runtime, so they carry no {@code runtime}
 * tag.
 */
public final class WorkersBinding {

  private static final CounterFamily JOBS =
      new CounterFamily(
          "fencing.maintenance.jobs",
          "Finished jobs the workers' retention removed (archived ones included) or archived",
          "action");
  private static final CounterFamily MAINTENANCE_FAILURES =
      CounterFamily.single(
          "fencing.maintenance.failures",
          "Maintenance rounds of the workers that failed (each logged, then retried later)");
  private static final CounterFamily MESSAGES =
      new CounterFamily(
          "fencing.relay.messages",
          "Outbox messages the workers' relay sent, by what the receiver said",
          "outcome");
  private static final CounterFamily RELAY_FAILURES =
      CounterFamily.single(
          "fencing.relay.failures",
          "Relay calls that failed (each logged; the message is sent again)");

  private WorkersBinding() {}

  /** Registers the counters of {@code workers}. */
  public static void bind(Instruments meters, FencedWorkers workers) {
    Tags none = Tags.empty();
    JOBS.register(meters, none, "removed", workers, w -> w.maintenanceStats().jobsRemoved());
    JOBS.register(meters, none, "archived", workers, w -> w.maintenanceStats().jobsArchived());
    MAINTENANCE_FAILURES.register(meters, none, "", workers, w -> w.maintenanceStats().failures());
    MESSAGES.register(meters, none, "accepted", workers, w -> relay(w).sent() - relay(w).refused());
    MESSAGES.register(meters, none, "refused", workers, w -> relay(w).refused());
    RELAY_FAILURES.register(meters, none, "", workers, w -> relay(w).failures());
  }

  private static RelayStats relay(FencedWorkers workers) {
    return workers.relayStats();
  }
}
