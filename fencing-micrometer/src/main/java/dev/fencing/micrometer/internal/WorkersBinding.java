package dev.fencing.micrometer.internal;

import dev.fencing.runtime.FencedRuntime;
import dev.fencing.runtime.FencedWorkers;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Tags;
import java.util.function.ToDoubleFunction;

/**
 * What the maintenance and the relay of a {@link FencedWorkers} did, as function counters read from
 * its stats. They belong to the workers, not to a queue's runtime, so they carry no {@code runtime}
 * tag.
 */
public final class WorkersBinding {

  private WorkersBinding() {}

  /** Registers the counters of {@code workers}. */
  public static void bind(Instruments meters, FencedWorkers workers) {
    String jobs =
        "Finished jobs the workers' retention removed (archived ones included) or archived";
    maintenance(meters, workers, "fencing.maintenance.jobs", jobs, "removed", s -> s.jobsRemoved());
    maintenance(
        meters, workers, "fencing.maintenance.jobs", jobs, "archived", s -> s.jobsArchived());
    count(
        meters,
        workers,
        "fencing.maintenance.failures",
        "Maintenance rounds of the workers that failed (each logged, then retried later)",
        Tags.empty(),
        w -> w.maintenanceStats().failures());
    String messages = "Outbox messages the workers' relay sent, by what the receiver said";
    count(
        meters,
        workers,
        "fencing.relay.messages",
        messages,
        Tags.of("outcome", "accepted"),
        w -> relay(w).sent() - relay(w).refused());
    count(
        meters,
        workers,
        "fencing.relay.messages",
        messages,
        Tags.of("outcome", "refused"),
        w -> relay(w).refused());
    count(
        meters,
        workers,
        "fencing.relay.failures",
        "Relay calls that failed (each logged; the message is sent again)",
        Tags.empty(),
        w -> relay(w).failures());
  }

  private static FencedRuntime.RelayStats relay(FencedWorkers workers) {
    return workers.relayStats();
  }

  private static void maintenance(
      Instruments meters,
      FencedWorkers workers,
      String name,
      String description,
      String action,
      ToDoubleFunction<FencedRuntime.MaintenanceStats> value) {
    count(
        meters,
        workers,
        name,
        description,
        Tags.of("action", action),
        w -> value.applyAsDouble(w.maintenanceStats()));
  }

  private static void count(
      Instruments meters,
      FencedWorkers workers,
      String name,
      String description,
      Tags tags,
      ToDoubleFunction<FencedWorkers> value) {
    FunctionCounter.builder(name, workers, value)
        .description(description)
        .tags(meters.common)
        .tags(tags)
        .register(meters.registry);
  }
}
