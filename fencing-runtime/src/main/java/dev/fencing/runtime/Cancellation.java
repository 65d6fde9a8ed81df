package dev.fencing.runtime;

import java.util.Optional;
import java.util.concurrent.CancellationException;

/**
 * Tells a handler that its work no longer counts: the lease was lost, or the runtime is stopping
 * and gave up waiting. The handler's thread is interrupted at the same moment.
 *
 * @since 0.1
 */
public interface Cancellation {

  /** Returns whether the job's work has been cancelled. */
  boolean isCancelled();

  /** Returns why the work was cancelled, or empty if it was not. */
  Optional<String> reason();

  /**
   * Returns normally if the work still counts.
   *
   * @throws CancellationException naming the reason, if it was cancelled
   */
  default void throwIfCancelled() {
    if (isCancelled()) {
      throw new CancellationException(reason().orElse("cancelled"));
    }
  }
}
