package dev.fencing.demo;

import dev.fencing.testkit.process.OwnershipBackend;
import dev.fencing.testkit.property.OwnershipSafetyProperties;
import java.time.Duration;

/** The test kit's producer property suite on PostgreSQL ownership and the PostgreSQL receiver. */
class PostgresProducerProperties extends OwnershipSafetyProperties {

  @Override
  protected Class<? extends OwnershipBackend> backend() {
    return OwnershipBackends.Postgres.class;
  }

  @Override
  protected Duration shortLease() {
    return Duration.ofMillis(200);
  }

  /**
   * 300 ms after the last short lease was granted: PostgreSQL computes its end from the granting
   * transaction's start, before the reply arrives, so 100 ms of margin remain (500 ms spent half a
   * interleaving's time asleep).
   */
  @Override
  protected Duration leasesRunOut() {
    return Duration.ofMillis(300);
  }

  @Override
  protected String address() {
    return "producer_ownership";
  }
}
