package dev.fencing.testkit.property;

import java.util.List;

/**
 * What running one {@link Interleaving} showed.
 *
 * @param timeline who did what, at which epoch, with the reply, one line per action
 * @param violations every invariant broken, in the order found
 * @since 0.1
 */
public record Execution(
    Interleaving interleaving, List<String> timeline, List<Violation> violations)
    implements Trial<Interleaving> {

  /**
   * One broken invariant.
   *
   * @param step the interleaving's step (from 1) during which it was seen; 0 for the final checks
   */
  public record Violation(Invariant invariant, int step, String detail) {
    @Override
    public String toString() {
      return invariant + (step > 0 ? " at step " + step : " at the end") + ": " + detail;
    }
  }

  public Execution {
    timeline = List.copyOf(timeline);
    violations = List.copyOf(violations);
  }

  @Override
  public List<Step> steps() {
    return interleaving.steps();
  }

  @Override
  public String firstInvariant() {
    return violations.isEmpty() ? "" : violations.getFirst().invariant().name();
  }

  @Override
  public boolean breaks(String invariant) {
    return violations.stream().anyMatch(v -> v.invariant().name().equals(invariant));
  }

  @Override
  public int firstViolationStep() {
    return violations.isEmpty() ? 0 : violations.getFirst().step();
  }

  /** Returns whether every invariant held. */
  @Override
  public boolean holds() {
    return violations.isEmpty();
  }

  /**
   * Does nothing if every invariant held.
   *
   * @throws AssertionError listing the violations and the timeline
   */
  public void assertHolds() {
    if (!holds()) {
      throw new AssertionError(report());
    }
  }

  /** Returns the violations, the interleaving and the timeline, readable. */
  @Override
  public String report() {
    StringBuilder out = new StringBuilder();
    out.append(violations.size()).append(" invariant violation(s):\n");
    violations.forEach(v -> out.append("  ").append(v).append('\n'));
    out.append("interleaving: ").append(interleaving).append("\ntimeline:\n");
    timeline.forEach(line -> out.append("  ").append(line).append('\n'));
    return out.toString();
  }
}
