package dev.fencing.postgres.internal;

import dev.fencing.internal.Validate;
import java.time.Duration;

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
 * @param appendOnly whether the queue runs on the append-only engine (docs/ENGINE.md) rather than
 *     on one row per job updated in place; read by {@code PostgresModule} alone, which binds that
 *     engine's {@link JobStore}
 */
public record Config(
    String schema,
    int maxAttempts,
    int transientRetries,
    Duration retryWait,
    boolean notifications,
    Duration listenerLinger,
    boolean synchronousReplication,
    boolean appendOnly) {

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
