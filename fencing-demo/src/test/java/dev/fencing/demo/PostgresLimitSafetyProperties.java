package dev.fencing.demo;

import dev.fencing.testkit.process.FencingBackend;
import dev.fencing.testkit.property.LimitSafetyProperties;

/**
 * The running limit's property suite against the real PostgreSQL queue on its default engine, the
 * append-only one: limits 1 and 2, each searched with {@code -Dfencing.limit.tries} interleavings
 * (6 in {@code verify}, 50 in {@code -Pfull}), the valid leases counted from the engine's claim
 * rows after every action ({@link PostgresBackend#validLeases}).
 */
class PostgresLimitSafetyProperties extends LimitSafetyProperties {

  @Override
  protected Class<? extends FencingBackend> backend() {
    return PostgresBackend.class;
  }
}
