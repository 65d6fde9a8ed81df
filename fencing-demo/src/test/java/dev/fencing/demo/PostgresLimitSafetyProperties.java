package dev.fencing.demo;

import dev.fencing.testkit.process.FencingBackend;
import dev.fencing.testkit.property.LimitSafetyProperties;

/**
 * The running limit's property suite against the real PostgreSQL queue on its default engine, the
 * append-only one: limits 1 and 2, each searched with an eighth of {@code -Dfencing.tries} (7
 * interleavings in {@code verify}, 25 in {@code -Pfull}; {@code -Dfencing.tries=800} for 100), the
 * valid leases counted from the engine's claim rows after every action ({@link
 * PostgresBackend#validLeases}).
 */
class PostgresLimitSafetyProperties extends LimitSafetyProperties {

  @Override
  protected Class<? extends FencingBackend> backend() {
    return PostgresBackend.class;
  }

  @Override
  protected int tries() {
    return Math.max(1, super.tries() / 8);
  }
}
