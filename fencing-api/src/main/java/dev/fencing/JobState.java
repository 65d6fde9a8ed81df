package dev.fencing;

import java.util.Locale;

/**
 * Where a job is in its life. Finished jobs stay as a record until retention removes them (see
 * {@link Maintenance}).
 *
 * @since 0.1
 */
public enum JobState {
  /** Waiting to be claimed, from its {@code runAt} on. */
  PENDING,
  /** Claimed under a lease. A running job whose lease expired may be reclaimed. */
  RUNNING,
  /** Committed with a result. Terminal. */
  COMPLETED,
  /** Failed on its last attempt. Terminal. */
  FAILED;

  /** Returns the state's name as stored in a database column: lower case. */
  public String dbName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * Returns the state named {@code name}, in any case.
   *
   * @throws IllegalArgumentException if no state has that name
   */
  public static JobState fromDbName(String name) {
    return valueOf(name.toUpperCase(Locale.ROOT));
  }
}
