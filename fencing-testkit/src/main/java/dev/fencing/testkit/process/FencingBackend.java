package dev.fencing.testkit.process;

import dev.fencing.FencedQueue;
import dev.fencing.FencedReceiver;
import dev.fencing.Job;
import javax.sql.DataSource;

/**
 * How a worker process builds the queue and receiver under test. Implementations need a public
 * no-argument constructor: worker processes load them by class name.
 *
 * @since 0.1
 */
public interface FencingBackend {

  /** Returns the queue, its tables installed in {@code schema}. */
  FencedQueue queue(DataSource dataSource, String schema);

  /** Returns the receiver, its tables installed in {@code schema}, shared by every process. */
  FencedReceiver receiver(DataSource dataSource, String schema);

  /**
   * The handler under test: what a worker computes for {@code job}, as JSON. Worker processes wrap
   * it with the claim's epoch and owner before they deliver it and commit it. By default, the job's
   * payload.
   */
  default String handle(Job job) {
    return job.payload();
  }

  /**
   * Loads the backend named {@code className} from the class path.
   *
   * @throws IllegalArgumentException if it cannot be loaded or built
   */
  static FencingBackend load(String className) {
    return Backends.load(className, FencingBackend.class, "a FencingBackend");
  }
}
