package dev.fencing.postgres.internal;

import io.github.resilience4j.retry.Retry;
import jakarta.inject.Inject;
import org.jooq.DSLContext;
import org.jspecify.annotations.Nullable;

/**
 * Migrates the configured schema to this jar's version, and reads what it records. Its statements
 * run on connections jOOQ takes itself, so it translates their failures itself ({@link
 * StoreFailures}).
 */
public final class SchemaSetup {

  private static final String READING = "reading the schema's version and engine";

  private final DSLContext dsl;
  private final Config config;
  private final Retry retry;
  private final StoreFailures failures;

  @Inject
  SchemaSetup(DSLContext dsl, Config config, Retry retry) {
    this.dsl = dsl;
    this.config = config;
    this.retry = retry;
    this.failures = StoreFailures.of(config);
  }

  /**
   * Applies the migration scripts the schema lacks ({@link Installer#install}); safe to run from
   * many processes at once, and while workers run. Retried after a transient failure, as every
   * statement is: a script that did not commit left the schema at the version before it.
   *
   * @return how many scripts it applied
   * @throws dev.fencing.StoreUnavailableException if the database could not be reached or refused
   */
  public int install(@Nullable String requestedEngine) {
    return failures.run(
        "installing the schema",
        Retry.decorateSupplier(
            retry, () -> Installer.install(dsl, config.schema(), requestedEngine)));
  }

  /**
   * Reads what the schema records of itself: its version and its engine.
   *
   * @throws dev.fencing.StoreUnavailableException if the database could not be reached or refused
   */
  public Installer.State state() {
    return failures.run(
        READING, Retry.decorateSupplier(retry, () -> Installer.state(dsl, config.schema())));
  }

  /** As {@link #state()}, without retrying after a transient failure. */
  public Installer.State stateOnce() {
    return failures.run(READING, () -> Installer.state(dsl, config.schema()));
  }
}
