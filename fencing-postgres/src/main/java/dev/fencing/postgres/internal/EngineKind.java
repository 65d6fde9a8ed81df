package dev.fencing.postgres.internal;

import java.util.Locale;

/**
 * How the queue stores its jobs (docs/ENGINE.md): the one representation of an engine inside the
 * backend. The front door's {@code PostgresFencing.Engine} maps to it in one place (its constants
 * have the same names, which messages show), and the schema's record ({@code fencing_schema}) is
 * read into it by {@link #ofStored} alone.
 */
public enum EngineKind {
  /** One row per job, updated by its claim, its renewals and its commit ({@code inplace}). */
  UPDATE_IN_PLACE,
  /** Jobs inserted once and never updated; claims and ends appended ({@code append}). */
  APPEND_ONLY;

  /** The engine of a schema that records none, when the builder named none. */
  public static final EngineKind DEFAULT = APPEND_ONLY;

  /** Returns the name {@code fencing_schema.engine} stores it by: {@code "append_only"}, say. */
  public String stored() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * Returns the engine {@code fencing_schema.engine} names by {@code stored}.
   *
   * @throws IllegalStateException naming {@code stored} if this library knows no such engine
   */
  public static EngineKind ofStored(String stored) {
    for (EngineKind engine : values()) {
      if (engine.stored().equals(stored)) {
        return engine;
      }
    }
    throw new IllegalStateException(
        "fencing_schema records engine '"
            + stored
            + "', which this version of the library does not know: upgrade it");
  }
}
