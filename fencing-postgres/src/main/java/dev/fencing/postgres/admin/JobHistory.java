package dev.fencing.postgres.admin;

import java.util.List;

/**
 * A job's claims and refused writes, for inspection ({@link PostgresAdmin#history}).
 *
 * @param claims every claim the engine keeps, newest first
 * @param claimsComplete false when the engine keeps only part: the update-in-place engine keeps the
 *     owners of the last 16 claims, and when and how only the current one began and ended
 * @param refusals the recorded refused writes, newest first
 * @since 0.1
 */
public record JobHistory(
    List<EpochClaim> claims, boolean claimsComplete, List<RefusedWrite> refusals) {

  /**
   * @throws NullPointerException if a list is null or holds null
   */
  public JobHistory {
    claims = List.copyOf(claims);
    refusals = List.copyOf(refusals);
  }
}
