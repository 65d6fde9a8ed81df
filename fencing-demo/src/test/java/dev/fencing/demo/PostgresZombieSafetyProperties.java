package dev.fencing.demo;

import dev.fencing.testkit.process.FencingBackend;
import dev.fencing.testkit.property.ZombieSafetyProperties;

/** The property suite against the real PostgreSQL queue and receiver. */
class PostgresZombieSafetyProperties extends ZombieSafetyProperties {

  @Override
  protected Class<? extends FencingBackend> backend() {
    return PostgresBackend.class;
  }
}
