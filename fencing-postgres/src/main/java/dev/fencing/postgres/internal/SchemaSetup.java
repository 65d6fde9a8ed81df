package dev.fencing.postgres.internal;

import io.github.resilience4j.retry.Retry;
import jakarta.inject.Inject;
import java.util.Optional;
import org.jooq.DSLContext;
import org.jspecify.annotations.Nullable;

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
   * idempotent. A schema that records no engine yet gets one (see {@link Installer#install}).
   */
  public void install(@Nullable String requestedEngine) {
    Retry.decorateRunnable(retry, () -> Installer.install(dsl, config.schema(), requestedEngine))
        .run();
  }

  /**
   * Returns the engine the schema records ({@link Installer#UPDATE_IN_PLACE} or {@link
   * Installer#APPEND_ONLY}), or empty when it records none.
   */
  public Optional<String> recordedEngine() {
    return Retry.decorateSupplier(retry, () -> Installer.recordedEngine(dsl, config.schema()))
        .get();
  }
}
