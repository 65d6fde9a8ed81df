package dev.fencing.demo;

import dev.fencing.testkit.process.FencingBackend;
import dev.fencing.testkit.property.LimitSafetyProperties;

/**
 * {@link PostgresLimitSafetyProperties} on the update-in-place engine: the same limits and as many
 * interleavings, the valid leases counted from the job rows ({@link
 * UpdateInPlacePostgresBackend#validLeases}).
 */
class UpdateInPlaceLimitSafetyProperties extends LimitSafetyProperties {

  @Override
  protected Class<? extends FencingBackend> backend() {
    return UpdateInPlacePostgresBackend.class;
  }
}
