package dev.fencing.micrometer;

import dev.fencing.runtime.FencedRuntime;
import dev.fencing.runtime.WorkOutcome;
import java.util.function.Consumer;

/**
 * The meters of one {@link FencedRuntime}, tagged {@code runtime=<name>}. Pass it to {@link
 * FencedRuntime.Builder#onOutcome} to count fenced-off outcomes by stage and reason, then {@link
 * #bind} the started runtime to read its {@link FencedRuntime.Stats} as counters and gauges:
 *
 * <pre>{@code
 * RuntimeMetrics meters = metrics.runtime("emails-worker");
 * FencedRuntime runtime = FencedRuntime.builder(queue, receiver)...onOutcome(meters).start();
 * meters.bind(runtime);
 * }</pre>
 *
 * <p>Thread-safe. {@link #close()} removes this runtime's meters from the registry.
 */
public interface RuntimeMetrics extends Consumer<WorkOutcome>, AutoCloseable {

  /**
   * Counts {@code outcome} when it was fenced off, in {@code fencing.runtime.fenced.off} by stage
   * and reason. Other outcomes are counted through {@link #bind}.
   */
  @Override
  void accept(WorkOutcome outcome);

  /**
   * Registers {@code runtime}'s counters since start as function counters and its claims in flight
   * as a gauge; the registry reads {@link FencedRuntime#stats()} when it publishes.
   *
   * @return this
   * @throws IllegalStateException if a runtime is bound already
   */
  RuntimeMetrics bind(FencedRuntime runtime);

  /** Removes every meter of this runtime from the registry; counting stops. */
  @Override
  void close();
}
