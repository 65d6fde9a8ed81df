package dev.fencing.postgres.internal;

import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import org.jspecify.annotations.Nullable;

/**
 * The engine a handle's graph wires its {@link JobStore} to ({@code PostgresModule}, the one place
 * that asks): the engine its schema was found to record, once its gate settled on it, else the
 * engine the builder named ({@link Config#engine}), else {@link EngineKind#DEFAULT}. Settled at
 * most once, so that one graph serves one engine for good; before that (the schema not read yet, or
 * holding no tables, which decides nothing) the parts built take the provisional engine, and the
 * gate keeps none of them.
 */
@Singleton
public final class EngineChoice {

  private final Config config;
  private volatile @Nullable EngineKind settled;

  @Inject
  EngineChoice(Config config) {
    this.config = config;
  }

  /** The engine before the schema decided: the builder's, else the default. */
  public EngineKind provisional() {
    EngineKind named = config.engine();
    return named != null ? named : EngineKind.DEFAULT;
  }

  /** The engine the graph wires its job store to now. */
  EngineKind engine() {
    EngineKind s = settled;
    return s != null ? s : provisional();
  }

  /**
   * Fixes the engine for the rest of the graph's life.
   *
   * @throws IllegalStateException if it was settled on another one
   */
  public synchronized void settle(EngineKind engine) {
    if (settled != null && settled != engine) {
      throw new IllegalStateException(
          "the engine of schema "
              + config.schema()
              + " was settled as "
              + settled
              + ", not "
              + engine);
    }
    settled = engine;
  }
}
