package dev.fencing.postgres.internal;

import io.github.resilience4j.retry.Retry;
import jakarta.inject.Inject;
import org.jooq.DSLContext;

/** Installs the fencing tables into the configured schema. */
public final class SchemaSetup {

  private final DSLContext dsl;
  private final Config config;
  private final Retry retry;

  @Inject
  SchemaSetup(DSLContext dsl, Config config, Retry retry) {
    this.dsl = dsl;
    this.config = config;
    this.retry = retry;
  }

  /**
   * Creates the schema and the tables if they do not exist; safe to run from many processes at
   * once, and while workers run. Retried after a transient failure, as every statement is: it is
   * idempotent.
   */
  public void install() {
    Retry.decorateRunnable(retry, () -> Installer.install(dsl, config.schema())).run();
  }
}
