package dev.fencing.testkit.property;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * Shrinks a failing interleaving of any domain by delta debugging over its steps: it cuts the
 * interleaving at the step that broke the invariant (with the time that passed made explicit if the
 * cut alone no longer fails), deletes chunks of steps (halves, quarters, ... single steps), then
 * tries the domain's own {@link PropertyDomain.Reduction}s (fewer jobs, fewer workers, simpler
 * leases...). A candidate is kept when it still breaks the same invariant. Each interleaving costs
 * seconds of real processes, so every outcome is remembered, and shrinking stops at a wall-clock
 * bound with the smallest interleaving so far.
 *
 * @param <S> the interleaving type
 * @param <T> what running one shows
 */
final class Shrinker<S, T extends Trial<S>> {

  private final PropertyDomain<S, T> domain;
  private final Function<S, T> property;
  private final String invariant;
  private final long deadline;
  private final Map<S, Optional<T>> seen = new HashMap<>();
  private T best;
  private int ran;
  private int remembered;
  private boolean timedOut;

  private Shrinker(PropertyDomain<S, T> domain, Function<S, T> property, T found, Duration bound) {
    this.domain = domain;
    this.property = property;
    this.invariant = found.firstInvariant();
    this.deadline = System.nanoTime() + bound.toNanos();
    this.best = found;
    seen.put(found.interleaving(), Optional.of(found));
  }

  /**
   * What shrinking found, and what it cost.
   *
   * @param ran how many candidates ran
   * @param remembered how many more were answered from memory
   * @param timedOut whether shrinking stopped at its bound
   */
  record Shrunk<T>(T smallest, int ran, int remembered, boolean timedOut) {}

  /**
   * Returns the smallest interleaving found that breaks the first invariant {@code found} broke.
   */
  static <S, T extends Trial<S>> Shrunk<T> shrink(
      PropertyDomain<S, T> domain, Function<S, T> property, T found, Duration bound) {
    Shrinker<S, T> shrinker = new Shrinker<>(domain, property, found, bound);
    shrinker.run();
    return new Shrunk<>(shrinker.best, shrinker.ran, shrinker.remembered, shrinker.timedOut);
  }

  private void run() {
    cutAtTheViolation();
    boolean progress = true;
    while (progress && !timedOut) {
      S before = best.interleaving();
      deleteChunks();
      for (PropertyDomain.Reduction<S> reduction : domain.reductions()) {
        reduce(reduction);
      }
      progress = !best.interleaving().equals(before);
    }
  }

  /**
   * Steps after the one that broke the invariant cannot matter, unless they may (the end checks),
   * so the first candidate ends at that step. A lease may also have run out by the clock alone, on
   * a slow machine; so the second candidate makes that explicit, and the failure stops depending on
   * timing.
   */
  private void cutAtTheViolation() {
    int at = best.firstViolationStep();
    List<Step> steps = best.steps();
    T found = best;
    List<Step> prefix = at <= 0 || at > steps.size() ? steps : steps.subList(0, at);
    if (prefix.size() < steps.size()
        && tryCandidate(domain.withSteps(found.interleaving(), prefix))) {
      return;
    }
    for (List<Step> explicit : domain.timeMadeExplicit(found, prefix)) {
      if (tryCandidate(domain.withSteps(found.interleaving(), explicit))) {
        return;
      }
    }
  }

  private void deleteChunks() {
    for (int size = Math.max(1, best.steps().size() / 2); size >= 1; size /= 2) {
      int i = 0;
      while (i < best.steps().size() && !timedOut) {
        List<Step> steps = new ArrayList<>(best.steps());
        steps.subList(i, Math.min(steps.size(), i + size)).clear();
        if (steps.isEmpty() || !tryCandidate(domain.withSteps(best.interleaving(), steps))) {
          i += size;
        }
      }
    }
  }

  /**
   * Walks {@code reduction}'s candidates once; after one that still fails it asks again from the
   * smaller interleaving and carries on from the same position (the outer loop repeats the passes
   * until none makes progress).
   */
  private void reduce(PropertyDomain.Reduction<S> reduction) {
    List<S> candidates = reduction.candidates(best.interleaving());
    for (int i = 0; i < candidates.size() && !timedOut; i++) {
      if (tryCandidate(candidates.get(i))) {
        candidates = reduction.candidates(best.interleaving());
        i--;
      }
    }
  }

  /**
   * Runs {@code candidate} unless its outcome is remembered; returns whether it breaks the same
   * invariant, and then makes it the one to beat.
   */
  private boolean tryCandidate(S candidate) {
    if (candidate.equals(best.interleaving())) {
      return false;
    }
    Optional<T> trial = seen.get(candidate);
    if (trial != null) {
      remembered++;
    } else {
      if (System.nanoTime() - deadline > 0) {
        timedOut = true;
        return false;
      }
      ran++;
      try {
        trial = Optional.of(property.apply(candidate));
      } catch (InterleavingAbortedException e) {
        // a candidate that cannot run to its end shows nothing about the invariant
        trial = Optional.empty();
      }
      seen.put(candidate, trial);
    }
    if (trial.isEmpty() || !trial.get().breaks(invariant)) {
      return false;
    }
    best = trial.get();
    return true;
  }
}
