package dev.fencing.postgres.internal;

import jakarta.inject.Inject;
import org.jooq.DSLContext;

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
   * Creates the schema and the table if they do not exist; safe to run from many processes at once.
   */
  public void install() {
    Installer.install(dsl, config.schema());
  }
}
