package dev.fencing.postgres.internal;

import dev.fencing.internal.Validate;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * The settings of one PostgreSQL backend, checked once when built.
 *
 * @param schema where the tables live, a plain identifier
 * @param maxAttempts how many claims a job gets before a failure is terminal
 * @param transientRetries how many times a statement is retried after a transient failure
 * @param retryWait the pause between those retries
 * @param notifications whether enqueue and release notify, and waits listen (LISTEN/NOTIFY)
 * @param listenerLinger how long the listening connection stays open after the last wait ended
 * @param synchronousReplication whether every transaction forces {@code synchronous_commit = on}
 *     and a commit whose wait for the standby was cancelled counts as unknown
 * @param engine the engine the builder named (docs/ENGINE.md), or null to follow the one the schema
 *     records; the install records it in a schema that records none, and {@link EngineChoice}
 *     decides from it which engine's {@link JobStore} the graph binds
 */
public record Config(
    String schema,
    int maxAttempts,
    int transientRetries,
    Duration retryWait,
    boolean notifications,
    Duration listenerLinger,
    boolean synchronousReplication,
    @Nullable EngineKind engine) {

  /** The default of {@link #listenerLinger}. */
  public static final Duration DEFAULT_LINGER = Duration.ofSeconds(30);

  /**
   * @throws IllegalArgumentException naming the first setting out of range
   */
  public Config {
    Validate.identifier("schema", schema);
    Validate.maxAttempts(maxAttempts);
    if (transientRetries < 0 || transientRetries > 100) {
      throw new IllegalArgumentException(
          "transientRetries must be between 0 and 100, but was " + transientRetries);
    }
    Validate.delay("retryWait", retryWait);
    Validate.delay("listenerLinger", listenerLinger);
  }
}
