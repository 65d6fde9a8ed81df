package dev.fencing.spring;

import dev.fencing.runtime.FencedWorkers;
import dev.fencing.runtime.MaintenanceStats;
import dev.fencing.runtime.QueueHealth;
import dev.fencing.runtime.QueueStats;
import dev.fencing.runtime.RelayStats;
import java.util.Map;
import java.util.Optional;

/**
 * The workers the starter runs: a {@link FencedWorkers} with a queue per {@link QueueHandler} or
 * {@link OutboxQueueHandler} bean, the schedules, the outbox relays and maintenance, started when
 * the application context starts and drained when it closes. Inject it to read their counters and
 * health.
 *
 * @since 0.1
 */
public interface ManagedWorkers {

  /** Returns the owner name every queue of this process claims as. */
  String owner();

  /** Returns the running workers; empty before the context started and after it stopped. */
  Optional<FencedWorkers> running();

  /** Returns each running queue's counters; empty when not running. */
  default Map<String, QueueStats> stats() {
    return running().map(FencedWorkers::stats).orElse(Map.of());
  }

  /**
   * Returns each running queue's health: whether its lease renewals or its claims are failing now;
   * empty when not running.
   */
  default Map<String, QueueHealth> health() {
    return running().map(FencedWorkers::health).orElse(Map.of());
  }

  /** Returns what maintenance did since start; all zero when it does not run. */
  default MaintenanceStats maintenanceStats() {
    return running()
        .map(FencedWorkers::maintenanceStats)
        .orElse(new MaintenanceStats(0, 0, 0, 0, 0));
  }

  /** Returns what the outbox relays did since start; all zero without one. */
  default RelayStats relayStats() {
    return running().map(FencedWorkers::relayStats).orElse(new RelayStats(0, 0, 0, 0));
  }
}
