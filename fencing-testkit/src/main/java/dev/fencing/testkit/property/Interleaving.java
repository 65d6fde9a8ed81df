package dev.fencing.testkit.property;

import java.util.List;
import java.util.Objects;

/**
 * An interleaving to run: how many workers and jobs, and the steps in order.
 *
 * @param workers how many worker processes, 1 to {@value #MAX_WORKERS}
 * @param jobs how many jobs are enqueued before the first step, 1 to {@value #MAX_JOBS}
 * @param steps what happens, in order
 * @since 0.1
 */
public record Interleaving(int workers, int jobs, List<Step> steps) {

  /** The most workers an interleaving may have. */
  public static final int MAX_WORKERS = 8;

  /** The most jobs an interleaving may have. */
  public static final int MAX_JOBS = 100;

  /**
   * @throws IllegalArgumentException naming the first count out of range, the first producer's
   *     step, or the first step that names a worker the interleaving does not have
   */
  public Interleaving {
    if (workers < 1 || workers > MAX_WORKERS) {
      throw new IllegalArgumentException(
          "workers must be between 1 and " + MAX_WORKERS + ", but was " + workers);
    }
    if (jobs < 1 || jobs > MAX_JOBS) {
      throw new IllegalArgumentException(
          "jobs must be between 1 and " + MAX_JOBS + ", but was " + jobs);
    }
    steps = List.copyOf(Objects.requireNonNull(steps, "steps"));
    for (int i = 0; i < steps.size(); i++) {
      if (steps.get(i) instanceof Step.ProducerAction action) {
        throw new IllegalArgumentException(
            "steps[" + i + "] must be a worker's or a common step, but was " + action);
      }
      int worker = steps.get(i).actor();
      if (worker < 0 || worker >= workers) {
        throw new IllegalArgumentException(
            "steps["
                + i
                + "] ("
                + steps.get(i)
                + ") names worker w"
                + worker
                + ", but the interleaving has workers w0 to w"
                + (workers - 1));
      }
    }
  }

  /**
   * Returns an interleaving with these steps and jobs and as many workers as they name, at least
   * {@code minWorkers}.
   *
   * @throws IllegalArgumentException as the constructor does
   */
  public static Interleaving naming(int minWorkers, int jobs, List<Step> steps) {
    int named = steps.stream().mapToInt(Step::actor).max().orElse(-1) + 1;
    return new Interleaving(Math.max(minWorkers, named), jobs, steps);
  }

  @Override
  public String toString() {
    StringBuilder out = new StringBuilder();
    out.append(workers).append(" workers, ").append(jobs).append(" jobs:");
    for (int i = 0; i < steps.size(); i++) {
      out.append("\n  ").append(i + 1).append(". ").append(steps.get(i));
    }
    return out.toString();
  }
}
