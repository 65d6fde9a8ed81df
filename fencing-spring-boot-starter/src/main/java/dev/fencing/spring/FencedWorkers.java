package dev.fencing.spring;

import dev.fencing.runtime.FencedRuntime;
import java.util.Map;

/**
 * The worker runtimes the starter runs, one per queue with a {@link QueueHandler}, started when the
 * application context starts and drained when it closes. Inject it to read their {@link
 * FencedRuntime#stats()}.
 */
public interface FencedWorkers {

  /** Returns the owner name every runtime of this process claims as. */
  String owner();

  /**
   * Returns the running runtimes by queue name; empty before the context started and after stop.
   */
  Map<String, FencedRuntime> runtimes();
}
