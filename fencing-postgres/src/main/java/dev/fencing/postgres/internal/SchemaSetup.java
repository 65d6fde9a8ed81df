package dev.fencing.postgres.internal;

import io.github.resilience4j.retry.Retry;
import jakarta.inject.Inject;
import org.jooq.DSLContext;
import org.jspecify.annotations.Nullable;

/** Migrates the configured schema to this jar's version, and reads what it records. */
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
   * Applies the migration scripts the schema lacks ({@link Installer#install}); safe to run from
   * many processes at once, and while workers run. Retried after a transient failure, as every
   * statement is: a script that did not commit left the schema at the version before it.
   *
   * @return how many scripts it applied
   */
  public int install(@Nullable String requestedEngine) {
    return Retry.decorateSupplier(
            retry, () -> Installer.install(dsl, config.schema(), requestedEngine))
        .get();
  }

  /** Reads what the schema records of itself: its version and its engine. */
  public Installer.State state() {
    return Retry.decorateSupplier(retry, this::stateOnce).get();
  }

  /** As {@link #state()}, without retrying after a transient failure. */
  public Installer.State stateOnce() {
    return Installer.state(dsl, config.schema());
  }
}
