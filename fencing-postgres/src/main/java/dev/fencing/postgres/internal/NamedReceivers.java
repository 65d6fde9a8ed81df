package dev.fencing.postgres.internal;

import dev.fencing.FencedReceiver;
import dev.fencing.internal.Validate;
import jakarta.inject.Inject;

/** Makes the receivers of the configured schema, on the queue's connections and retries. */
public final class NamedReceivers {

  private final Jdbc jdbc;

  @Inject
  NamedReceivers(Jdbc jdbc) {
    this.jdbc = jdbc;
  }

  /**
   * Returns the receiver named {@code name}.
   *
   * @throws IllegalArgumentException if {@code name} is not a plain identifier
   */
  public FencedReceiver named(String name) {
    return new PostgresReceiver(jdbc, jdbc.config().schema(), Validate.identifier("name", name));
  }
}
