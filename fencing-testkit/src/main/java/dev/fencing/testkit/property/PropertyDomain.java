package dev.fencing.testkit.property;

import java.util.List;
import org.quicktheories.core.Gen;

/**
 * What the property engine ({@link PropertySearch}) needs to know about a kind of interleaving: how
 * to generate one, how to rebuild one with other steps, and the reductions of its own that
 * shrinking tries after deleting steps. {@link Interleavings} is the worker domain, {@link
 * ProducerInterleavings} the producer one.
 *
 * @param <S> the interleaving type, a value with equals (outcomes are remembered by it)
 * @param <T> what running one shows
 * @since 0.1
 */
public interface PropertyDomain<S, T extends Trial<S>> {

  /** Generates interleavings. */
  Gen<S> generator();

  /** Returns {@code like} with these steps instead of its own. */
  S withSteps(S like, List<Step> steps);

  /**
   * Returns {@code prefix} (the steps of {@code found} up to the one that broke the invariant, or
   * all of them when it broke at the end) with the time that passed by the clock alone made
   * explicit {@link Step.LeasesRunOut}s, one candidate per way, so that a failure that depended on
   * a slow machine stops depending on it.
   */
  List<List<Step>> timeMadeExplicit(T found, List<Step> prefix);

  /** The domain's own reductions, tried in this order after deleting steps. */
  List<Reduction<S>> reductions();

  /**
   * A way to make an interleaving simpler: fewer jobs, fewer workers, a smaller number.
   *
   * @param <S> the interleaving type
   */
  @FunctionalInterface
  interface Reduction<S> {

    /** Returns simpler interleavings than {@code smallest}, the most promising first. */
    List<S> candidates(S smallest);
  }
}
