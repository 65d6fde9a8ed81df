package dev.fencing.demo;

import dev.fencing.testkit.property.Step;
import dev.fencing.testkit.property.Trial;
import java.util.List;

/**
 * What running one {@link FifoPerGroupInterleaving} showed.
 *
 * @param timeline who did what, with the reply, one line per action
 * @param violations every invariant broken, in the order found
 */
record FifoPerGroupExecution(
    FifoPerGroupInterleaving interleaving, List<String> timeline, List<Violation> violations)
    implements Trial<FifoPerGroupInterleaving> {

  /**
   * What a queue limited by {@code withMaxRunningPerGroup(n).withFifoPerGroup()} promises, checked
   * after every action.
   */
  enum Invariant {
    /**
     * Per group, the jobs' first hand-outs come in increasing job id (enqueue) order, whatever
     * their priorities; a job taken over or retried may be handed out again later.
     */
    FIFO_FIRST_STARTS,
    /**
     * A job of a group is handed out only while no earlier job of its group waits (to be claimed,
     * for its retry, or given back): only a group's oldest waiting jobs start, and one waiting for
     * its retry holds its group. With a limit of 1 and the next invariant, every earlier job of the
     * group has ended.
     */
    EARLIER_JOBS_NOT_WAITING,
    /**
     * At every step, at most {@code n} jobs of each group are under way in the database (running,
     * whatever their leases), and so at most {@code n} hold a lease still valid at the database's
     * {@code clock_timestamp()}.
     */
    GROUP_LIMIT_KEPT
  }

  /**
   * One broken invariant.
   *
   * @param step the step (from 1) during which it was seen
   */
  record Violation(Invariant invariant, int step, String detail) {
    @Override
    public String toString() {
      return invariant + " at step " + step + ": " + detail;
    }
  }

  FifoPerGroupExecution {
    timeline = List.copyOf(timeline);
    violations = List.copyOf(violations);
  }

  @Override
  public List<Step> steps() {
    return interleaving.steps();
  }

  @Override
  public boolean holds() {
    return violations.isEmpty();
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
