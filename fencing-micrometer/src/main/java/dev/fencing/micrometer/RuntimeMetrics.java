package dev.fencing.micrometer;

import dev.fencing.runtime.FencedWorkers;
import dev.fencing.runtime.WorkOutcome;
import java.util.function.Consumer;

/**
 * The meters of one queue of a {@link FencedWorkers}, tagged {@code runtime=<name>}. Pass it to
 * {@link FencedWorkers.Builder#onOutcome} to count fenced-off outcomes by stage and reason (with
 * several queues, hand each outcome to the meters of its {@code job().queue()}), then {@link #bind}
 * the started workers' queue to read its {@link FencedWorkers.Stats} as counters and gauges:
 *
 * <pre>{@code
 * RuntimeMetrics meters = metrics.runtime("emails-worker");
 * FencedWorkers workers = FencedWorkers.builder(queue).receiver(receiver)
 *     .owner("w1").queue("emails", handler).onOutcome(meters).start();
 * meters.bind(workers, "emails");
 * }</pre>
 *
 * <p>Thread-safe. {@link #close()} removes these meters from the registry.
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
   * and its claims in flight as a gauge; the registry reads {@link FencedWorkers#stats()} when it
   * publishes.
   *
   * @return this
   * @throws IllegalArgumentException if {@code workers} run no queue named {@code queue}
   * @throws IllegalStateException if a queue is bound already
   */
  RuntimeMetrics bind(FencedWorkers workers, String queue);

  /** Removes every meter of this runtime from the registry; counting stops. */
  @Override
  void close();
}
