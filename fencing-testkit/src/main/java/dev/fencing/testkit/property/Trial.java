package dev.fencing.testkit.property;

import java.util.List;

/**
 * What running one interleaving showed, as the property engine sees it: worker interleavings give
 * an {@link Execution}, producer interleavings a {@link ProducerRunner.Run}.
 *
 * @param <S> the interleaving type
 * @since 0.1
 */
public interface Trial<S> {

  /** The interleaving that ran. */
  S interleaving();

  /** The interleaving's steps. */
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
