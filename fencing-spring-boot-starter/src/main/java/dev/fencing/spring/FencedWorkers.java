package dev.fencing.spring;

import dev.fencing.runtime.FencedRuntime;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The workers the starter runs (a {@link dev.fencing.runtime.FencedWorkers}): one runtime per queue
 * with a {@link QueueHandler} or {@link OutboxQueueHandler} bean, the schedules, the outbox relays
 * and maintenance, started when the application context starts and drained when it closes. Inject
 * it to read their counters and health.
 */
public interface FencedWorkers {

  /** Returns the owner name every runtime of this process claims as. */
  String owner();

  /**
   * Returns the running runtimes by queue name; empty before the context started and after stop.
   */
  Map<String, FencedRuntime> runtimes();

  /**
   * Returns each running queue's health: whether its lease renewals or its claims are failing now.
   *
   * @see FencedRuntime#health()
   */
  default Map<String, FencedRuntime.Health> health() {
    Map<String, FencedRuntime.Health> health = new LinkedHashMap<>();
    runtimes().forEach((queue, runtime) -> health.put(queue, runtime.health()));
    return health;
  }

  /** Returns what maintenance did since start; all zero when it does not run. */
  default FencedRuntime.MaintenanceStats maintenanceStats() {
    return new FencedRuntime.MaintenanceStats(0, 0, 0, 0, 0);
  }

  /** Returns what the outbox relays did since start; all zero without one. */
  default FencedRuntime.RelayStats relayStats() {
    return new FencedRuntime.RelayStats(0, 0, 0, 0);
  }
}
