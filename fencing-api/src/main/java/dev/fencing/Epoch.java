package dev.fencing;

/**
 * A fencing token: the number a claim or an acquisition was given. Every claim of a job takes a
 * larger epoch than every claim before it, and every acquisition of a resource ({@link
 * ResourceOwnership}) a larger one than every acquisition before it, so whoever holds the largest
 * epoch owns the job or resource and anything older is a zombie.
 *
 * @param value the token, at least 1
 * @since 0.1
 */
public record Epoch(long value) implements Comparable<Epoch> {

  /** The epoch of a job's first claim. */
  public static final Epoch FIRST = new Epoch(1);

  /**
   * @throws IllegalArgumentException if {@code value} is less than 1
   */
  public Epoch {
    if (value < 1) {
      throw new IllegalArgumentException("epoch must be at least 1, but was " + value);
    }
  }

  /**
   * Returns the epoch for {@code value}.
   *
   * @throws IllegalArgumentException if {@code value} is less than 1
   */
  public static Epoch of(long value) {
    return new Epoch(value);
  }

  /** Returns the epoch the next claim takes. */
  public Epoch next() {
    return new Epoch(Math.addExact(value, 1));
  }

  /** Returns whether this epoch is newer (strictly larger) than {@code other}. */
  public boolean isNewerThan(Epoch other) {
    return value > other.value;
  }

  @Override
  public int compareTo(Epoch other) {
    return Long.compare(value, other.value);
  }

  @Override
  public String toString() {
    return "epoch " + value;
  }
}
