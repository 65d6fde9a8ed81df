package dev.fencing.postgres.internal;

import jakarta.inject.Inject;

/**
 * Migrates the configured schema to this jar's version, and reads what it records. Its statements
 * run on connections jOOQ takes itself; {@link Jdbc} retries them and translates their failures.
 */
public final class SchemaSetup {

  private static final String READING = "reading the schema's version and engine";

  private final Jdbc jdbc;

  @Inject
  SchemaSetup(Jdbc jdbc) {
    this.jdbc = jdbc;
  }

  /**
   * Applies the migration scripts the schema lacks ({@link Installer#install}); safe to run from
   * many processes at once, and while workers run. Retried after a transient failure, as every
   * statement is: a script that did not commit left the schema at the version before it.
   *
   * @return how many scripts it applied
   * @throws dev.fencing.StoreUnavailableException if the database could not be reached or refused
   */
  public int install() {
    return jdbc.guarded(
        "installing the schema",
        () -> Installer.install(jdbc.dsl(), jdbc.config().schema(), jdbc.config().engine()));
  }

  /**
   * Reads what the schema records of itself: its version and its engine.
   *
   * @throws dev.fencing.StoreUnavailableException if the database could not be reached or refused
   */
  public Installer.State state() {
    return jdbc.guarded(READING, () -> Installer.state(jdbc.dsl(), jdbc.config().schema()));
  }

  /** As {@link #state()}, without retrying after a transient failure. */
  public Installer.State stateOnce() {
    return jdbc.once(READING, () -> Installer.state(jdbc.dsl(), jdbc.config().schema()));
  }
}
