package dev.fencing.testkit.property;

import java.util.List;

/**
 * What running one schedule showed, as the property engine sees it: worker schedules give an {@link
 * Execution}, producer schedules a {@link ProducerRunner.Run}.
 *
 * @param <S> the schedule type
 */
public interface Trial<S> {

  /** The schedule that ran. */
  S schedule();

  /** The schedule's steps. */
  List<Step> steps();

  /** Whether every invariant held. */
  boolean holds();

  /** The name of the first invariant broken, or empty if every one held. */
  String firstInvariant();

  /** Whether any violation broke the invariant named {@code invariant}. */
  boolean breaks(String invariant);

  /** The step (from 1) during which the first violation was seen; 0 if at the end or none. */
  int firstViolationStep();

  /** The timeline and the violations, readable. */
  String report();
}
