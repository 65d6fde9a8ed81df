package dev.fencing.postgres.internal;

import dev.fencing.CoordinationException;
import jakarta.inject.Inject;
import org.jooq.DSLContext;
import org.jooq.exception.DataAccessException;

/** Installs the job table into the configured schema. */
public final class SchemaSetup {

  private final DSLContext dsl;
  private final Config config;

  @Inject
  SchemaSetup(DSLContext dsl, Config config) {
    this.dsl = dsl;
    this.config = config;
  }

  /**
   * Creates the schema and the tables if they do not exist; safe to run from many processes at
   * once.
   */
  public void install() {
    Installer.install(dsl, config.schema());
  }

  /**
   * Installs as {@link #install()} does.
   *
   * @throws CoordinationException naming the schema and what the driver said, if the database could
   *     not be reached or refused
   */
  public void installOrThrowCoordination() {
    try {
      install();
    } catch (DataAccessException e) {
      throw new CoordinationException(
          "PostgreSQL: could not install schema "
              + config.schema()
              + ": "
              + JooqOwnership.describe(e),
          e);
    }
  }
}
