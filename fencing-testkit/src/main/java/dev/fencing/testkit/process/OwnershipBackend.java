package dev.fencing.testkit.process;

import dev.fencing.FencedReceiver;
import dev.fencing.ResourceOwnership;
import javax.sql.DataSource;

/**
 * How a producer process opens the ownership backend and the receiver under test, for {@link
 * dev.fencing.testkit.property.OwnershipSafetyProperties}. Implementations need a public
 * no-argument constructor: producer processes load them by class name.
 *
 * @since 0.1
 */
public interface OwnershipBackend {

  /**
   * Opens a client of the coordination service at {@code address} (what the suite's {@link
   * dev.fencing.testkit.property.OwnershipSafetyProperties#address()} returned); {@code database}
   * is the suite's PostgreSQL, for a backend that keeps ownership there.
   */
  ResourceOwnership ownership(String address, DataSource database);

  /** Returns the receiver, its tables installed in {@code schema}, shared by every process. */
  FencedReceiver receiver(DataSource dataSource, String schema);

  /**
   * Loads the backend named {@code className} from the class path.
   *
   * @throws IllegalArgumentException if it cannot be loaded or built
   */
  static OwnershipBackend load(String className) {
    return Backends.load(className, OwnershipBackend.class, "an OwnershipBackend");
  }
}
