package dev.fencing.testkit.property;

import java.util.List;
import java.util.Objects;

/**
 * One interleaving of producer processes over resources, for {@link OwnershipSafetyProperties}.
 * Producers 0 and 1 share the owner name {@code twin}: two processes may carry one name.
 *
 * @param producers how many producer processes, 2 to 4
 * @param resources how many resources, 1 to 3
 * @param steps what happens, in order: {@link Step.ProducerAction}s and the common steps
 * @since 0.1
 */
public record ProducerInterleaving(int producers, int resources, List<Step> steps) {

  /**
   * @throws IllegalArgumentException if a count is out of range, or a step is a worker's or names a
   *     producer or resource that is not there
   */
  public ProducerInterleaving {
    if (producers < 2 || producers > 4) {
      throw new IllegalArgumentException("producers must be 2 to 4, but was " + producers);
    }
    if (resources < 1 || resources > 3) {
      throw new IllegalArgumentException("resources must be 1 to 3, but was " + resources);
    }
    steps = List.copyOf(Objects.requireNonNull(steps, "steps"));
    for (Step step : steps) {
      boolean fits =
          switch (step) {
            case Step.WorkerAction worker -> false;
            case Step.ProducerAction action -> action.resource() < resources;
            default -> true;
          };
      if (!fits || step.actor() >= producers) {
        throw new IllegalArgumentException("step must fit the interleaving, but was " + step);
      }
    }
  }

  /** Returns the owner name of producer {@code index}. */
  public static String ownerName(int index) {
    return index < 2 ? "twin" : "p" + index;
  }

  @Override
  public String toString() {
    StringBuilder out = new StringBuilder();
    out.append(producers).append(" producers, ").append(resources).append(" resources:");
    for (int i = 0; i < steps.size(); i++) {
      out.append("\n  ").append(i).append(". ").append(steps.get(i));
    }
    return out.toString();
  }
}
