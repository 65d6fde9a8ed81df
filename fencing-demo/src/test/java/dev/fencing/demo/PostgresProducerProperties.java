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

  @Override
  protected Duration leasesRunOut() {
    return Duration.ofMillis(500);
  }

  @Override
  protected String address() {
    return "producer_ownership";
  }
}
