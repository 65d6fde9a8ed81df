package dev.fencing.micrometer;

import dev.fencing.runtime.FencedWorkers;
import dev.fencing.runtime.QueueStats;
import dev.fencing.runtime.WorkOutcome;
import java.util.function.Consumer;

/**
 * The meters of one queue of a {@link FencedWorkers}, tagged {@code runtime=<name>}. Pass it to the
 * queue's {@link dev.fencing.runtime.QueueSettings#onOutcome} to count fenced-off outcomes by stage
 * and reason, then {@link #bind} the started workers' queue to read its {@link QueueStats} as
 * counters and gauges:
 *
 * <pre>{@code
 * RuntimeMetrics meters = metrics.runtime("emails");
 * FencedWorkers workers = FencedWorkers.builder(fencing.consumer()).owner("pod-7")
 *     .queue("emails", handler, q -> q.onOutcome(meters))
 *     .start();
 * meters.bind(workers, "emails");
 * }</pre>
 *
 * <p>Thread-safe. {@link #close()} removes this runtime's meters from the registry.
 *
 * @since 0.1
 */
public interface RuntimeMetrics extends Consumer<WorkOutcome>, AutoCloseable {

  /**
   * Counts {@code outcome} when it was fenced off, in {@code fencing.runtime.fenced.off} by stage
   * and reason. Other outcomes are counted through {@link #bind}.
   */
  @Override
  void accept(WorkOutcome outcome);

  /**
   * Registers the counters since start of {@code workers}' queue {@code queue} as function counters
   * and its claims in flight as a gauge; the registry reads {@link FencedWorkers#stats(String)}
   * when it publishes.
   *
   * @return this
   * @throws IllegalArgumentException if {@code workers} do not run {@code queue}
   * @throws IllegalStateException if a queue is bound already
   */
  RuntimeMetrics bind(FencedWorkers workers, String queue);

  /** Removes every meter of this runtime from the registry; counting stops. */
  @Override
  void close();
}
