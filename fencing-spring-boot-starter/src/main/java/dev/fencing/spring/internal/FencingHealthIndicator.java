package dev.fencing.spring.internal;

import dev.fencing.FencedQueue;
import dev.fencing.QueueDepth;
import dev.fencing.SchemaNotInstalledException;
import dev.fencing.StoreUnavailableException;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.runtime.MaintenanceStats;
import dev.fencing.runtime.QueueHealth;
import dev.fencing.runtime.RelayStats;
import dev.fencing.spring.ManagedWorkers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * DOWN when the database cannot be reached within {@code fencing.health.timeout}, when the schema
 * has no fencing tables (a depth read fails), or when a runtime's latest lease renewal failed
 * (after the queue's retries) and none of its statements has succeeded since, as {@link
 * FencedRuntime#health()} says: its leases will run out and its work be fenced off. UP otherwise,
 * with the depth of every queue, each runtime's counters and health (claims failing, the latest
 * failure), what maintenance and the relays did, and the scheduler's counts when it runs (never
 * DOWN for these: a failed round is retried, a late slot dealt with by its schedule's missed-slot
 * policy, a failing claim is retried with a backoff).
 */
final class FencingHealthIndicator implements HealthIndicator {

  /** The queue whose depth is read when the application names none. */
  static final String PROBE = "fencing_health_probe";

  private final PostgresFencing fencing;
  private final FencedQueue queue;
  private final ManagedWorkers workers;
  private final Set<String> configured;
  private final Duration timeout;
  private final ObjectProvider<HealthDetails> more;

  FencingHealthIndicator(
      PostgresFencing fencing,
      FencedQueue queue,
      ManagedWorkers workers,
      Set<String> configured,
      Duration timeout,
      ObjectProvider<HealthDetails> more) {
    this.fencing = fencing;
    this.queue = queue;
    this.workers = workers;
    this.configured = Set.copyOf(configured);
    this.timeout = timeout;
    this.more = more;
  }

  @Override
  public Health health() {
    Map<String, Object> runtimes = new LinkedHashMap<>();
    List<String> renewalsFailing = new ArrayList<>();
    List<String> claimsFailing = new ArrayList<>();
    Map<String, QueueHealth> states = workers.health();
    workers
        .stats()
        .forEach(
            (name, stats) -> {
              Map<String, Object> details = HealthDetails.components(stats);
              QueueHealth state = states.get(name);
              if (state != null) {
                details.put("renewalsFailing", state.renewalsFailing());
                details.put("claimsFailing", state.claimsFailing());
                state.lastFailure().ifPresent(f -> details.put("lastFailure", f));
                if (state.renewalsFailing()) {
                  renewalsFailing.add(name);
                }
                if (state.claimsFailing()) {
                  claimsFailing.add(name);
                }
              }
              runtimes.put(name, details);
            });
    TreeSet<String> queues = new TreeSet<>(configured);
    queues.addAll(runtimes.keySet());
    Health.Builder health = Health.up().withDetail("schema", fencing.schema());
    health.withDetail("owner", workers.owner());
    CompletableFuture<Map<String, Object>> depths =
        CompletableFuture.supplyAsync(() -> depths(queues), Thread.ofVirtual()::start);
    try {
      health.withDetail("queues", depths.get(timeout.toNanos(), TimeUnit.NANOSECONDS));
    } catch (TimeoutException e) {
      depths.cancel(true);
      health.down().withDetail("error", "the database did not answer within " + timeout);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      health.unknown().withDetail("error", "interrupted");
    } catch (ExecutionException e) {
      health.down().withDetail("error", e.getCause().getMessage());
    }
    if (!renewalsFailing.isEmpty()) {
      health.down().withDetail("renewalsFailing", renewalsFailing);
    }
    if (!claimsFailing.isEmpty()) {
      health.withDetail("claimsFailing", claimsFailing);
    }
    health.withDetail("runtimes", runtimes);
    sidecars(health);
    more.orderedStream()
        .forEach(
            d -> {
              Map<String, Object> details = d.details();
              if (!details.isEmpty()) {
                health.withDetail(d.key(), details);
              }
            });
    return health.build();
  }

  /** What maintenance and the relays did, when they ran: details, never a reason for DOWN. */
  private void sidecars(Health.Builder health) {
    MaintenanceStats m = workers.maintenanceStats();
    if (m.rounds() + m.failures() > 0) {
      health.withDetail("maintenance", HealthDetails.components(m));
    }
    RelayStats r = workers.relayStats();
    if (r.rounds() > 0) {
      health.withDetail("relay", HealthDetails.components(r));
    }
  }

  /**
   * Reads each queue's depth, which fails on a schema without the tables; with no queue known, the
   * depth of one nobody uses, so that the database and the schema are checked all the same.
   */
  private Map<String, Object> depths(TreeSet<String> queues) {
    try {
      if (queues.isEmpty()) {
        queue.depth(PROBE);
        return Map.of();
      }
      Map<String, Object> depths = new LinkedHashMap<>();
      for (String name : queues) {
        QueueDepth d = queue.depth(name);
        depths.put(
            name, Map.of("pending", d.pending(), "running", d.running(), "failed", d.failed()));
      }
      return depths;
    } catch (SchemaNotInstalledException | StoreUnavailableException e) {
      throw new IllegalStateException(e.getMessage(), e);
    }
  }
}
