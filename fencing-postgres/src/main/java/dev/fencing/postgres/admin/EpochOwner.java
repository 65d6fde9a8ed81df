package dev.fencing.postgres.admin;

/**
 * Who held one epoch of a job: the owner of the claim that took it.
 *
 * @param epoch the fencing token, from 1
 * @param owner the worker that claimed it
 * @since 0.1
 */
public record EpochOwner(long epoch, String owner) {

  /**
   * @throws IllegalArgumentException if {@code epoch} is below 1
   * @throws NullPointerException if {@code owner} is null
   */
  public EpochOwner {
    if (epoch < 1) {
      throw new IllegalArgumentException("epoch must be at least 1, but was " + epoch);
    }
    java.util.Objects.requireNonNull(owner, "owner");
  }
}
