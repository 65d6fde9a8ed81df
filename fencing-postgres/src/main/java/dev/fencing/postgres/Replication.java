package dev.fencing.postgres;

import java.util.Objects;

/**
 * What the server a handle reaches said about synchronous replication when asked (see {@link
 * PostgresFencing#replication()}).
 *
 * @param synchronousMode whether the handle runs in synchronous mode ({@link
 *     PostgresFencing.Builder#synchronousReplication})
 * @param standbyNames the server's {@code synchronous_standby_names}; empty when it names none
 * @param standby whether a synchronous standby is attached and streaming
 * @since 0.1
 */
public record Replication(boolean synchronousMode, String standbyNames, Standby standby) {

  /**
   * @throws NullPointerException if {@code standbyNames} or {@code standby} is null
   */
  public Replication {
    Objects.requireNonNull(standbyNames, "standbyNames");
    Objects.requireNonNull(standby, "standby");
  }

  /** Whether a synchronous standby is attached. */
  public enum Standby {
    /**
     * At least one standby streams with {@code pg_stat_replication.sync_state} {@code sync} or
     * {@code quorum}: commits wait for it.
     */
    ATTACHED,
    /** None does: commits do not wait (or, if standbys are named, wait until one attaches). */
    NONE,
    /**
     * The role may not see {@code pg_stat_replication} (grant it {@code pg_read_all_stats}), or the
     * server is a standby itself.
     */
    UNKNOWN
  }
}
