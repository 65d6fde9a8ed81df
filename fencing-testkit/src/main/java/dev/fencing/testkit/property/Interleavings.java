package dev.fencing.testkit.property;

import java.util.ArrayList;
import java.util.List;
import org.quicktheories.api.Pair;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

/**
 * Which {@link Interleaving}s a property search draws: how many workers, jobs and steps. Steps are
 * claims, renewals, deliveries, commits, failures, stalls and resumes, lease expiries and crashes,
 * weighted towards claims and commits; a worker keeps its owner name across its claims, so the same
 * owner reclaims its own job.
 *
 * @param minWorkers the fewest workers an interleaving has, 1 to {@value Interleaving#MAX_WORKERS}
 * @param maxWorkers the most workers an interleaving names, {@code minWorkers} to {@value
 *     Interleaving#MAX_WORKERS}
 * @param minJobs the fewest jobs, 1 to {@value Interleaving#MAX_JOBS}
 * @param maxJobs the most jobs, {@code minJobs} to {@value Interleaving#MAX_JOBS}
 * @param maxSteps the most steps, 1 to 1,000; lengths are drawn uniformly from 1 to this
 * @since 0.1
 */
public record Interleavings(int minWorkers, int maxWorkers, int minJobs, int maxJobs, int maxSteps)
    implements PropertyDomain<Interleaving, Execution> {

  /**
   * @throws IllegalArgumentException naming the first bound out of range, or a minimum above its
   *     maximum
   */
  public Interleavings {
    new Interleaving(minWorkers, minJobs, List.of());
    new Interleaving(maxWorkers, maxJobs, List.of());
    if (minWorkers > maxWorkers || minJobs > maxJobs) {
      throw new IllegalArgumentException(
          "bounds must be ordered, but were workers "
              + minWorkers
              + ".."
              + maxWorkers
              + ", jobs "
              + minJobs
              + ".."
              + maxJobs);
    }
    if (maxSteps < 1 || maxSteps > 1_000) {
      throw new IllegalArgumentException(
          "maxSteps must be between 1 and 1000, but was " + maxSteps);
    }
  }

  /** Returns the default bounds: 2-4 workers, 1-3 jobs, 1-30 steps. */
  public static Interleavings defaults() {
    return new Interleavings(2, 4, 1, 3, 30);
  }

  /**
   * Returns the bounds for a queue with a running limit of {@code maxRunning} (1 to 4): 2-4
   * workers, from one job more than the limit to three more, 1-30 steps. With more jobs than slots,
   * a claim past the limit always finds a job to take, so a store that does not count the limit
   * breaks it within a few claims.
   *
   * @throws IllegalArgumentException if {@code maxRunning} is outside 1 .. 4
   */
  public static Interleavings underLimit(int maxRunning) {
    if (maxRunning < 1 || maxRunning > 4) {
      throw new IllegalArgumentException(
          "maxRunning must be between 1 and 4, but was " + maxRunning);
    }
    return new Interleavings(2, 4, maxRunning + 1, maxRunning + 3, 30);
  }

  /**
   * Returns the first {@code count} interleavings a search with {@code seed} would try, in order.
   *
   * @throws IllegalArgumentException if {@code count} is not positive
   */
  public List<Interleaving> sample(long seed, int count) {
    return PropertySearch.sample(generator(), seed, count);
  }

  /** Returns an interleaving with these steps and jobs and as many workers as they name. */
  Interleaving of(int jobs, List<Step> steps) {
    return Interleaving.naming(minWorkers, jobs, steps);
  }

  @Override
  public Interleaving withSteps(Interleaving like, List<Step> steps) {
    return of(like.jobs(), steps);
  }

  /**
   * Time passes just before the step that broke the invariant; else before every claim (a short
   * lease that ran out by the clock alone let another worker take the job over).
   */
  @Override
  public List<List<Step>> timeMadeExplicit(Execution found, List<Step> prefix) {
    List<Step> waited = new ArrayList<>(prefix.subList(0, prefix.size() - 1));
    waited.add(new Step.LeasesRunOut());
    waited.add(prefix.getLast());
    List<Step> beforeClaims = new ArrayList<>();
    for (Step step : prefix) {
      boolean waitedAlready =
          !beforeClaims.isEmpty() && beforeClaims.getLast() instanceof Step.LeasesRunOut;
      if (step instanceof Step.Claim && !beforeClaims.isEmpty() && !waitedAlready) {
        beforeClaims.add(new Step.LeasesRunOut());
      }
      beforeClaims.add(step);
    }
    return List.of(waited, beforeClaims);
  }

  /** Fewer jobs, fewer workers, lease #0 (see {@link WorkerReductions}). */
  @Override
  public List<PropertyDomain.Reduction<Interleaving>> reductions() {
    return WorkerReductions.of(minWorkers, minJobs);
  }

  /** The generator: a job count, a length, then that many steps. */
  @Override
  public Gen<Interleaving> generator() {
    Gen<Step> step = steps();
    Gen<Integer> jobs = Generate.range(minJobs, maxJobs);
    // uniform lengths: short interleavings rarely let a lease run out, a new owner take over and
    // the
    // old one come back
    Gen<Integer> length = Generate.range(1, maxSteps);
    return jobs.zip(
        length.flatMap(
            n ->
                in -> {
                  List<Step> steps = new ArrayList<>(n);
                  for (int i = 0; i < n; i++) {
                    steps.add(step.generate(in));
                  }
                  return steps;
                }),
        this::of);
  }

  /** Single steps; crashes are rare because each one costs a JVM start. */
  private Gen<Step> steps() {
    // w0 and w1 act most often, so that two workers meet on the same job; w2, w3... less
    List<Pair<Integer, Gen<Integer>>> weights = new ArrayList<>();
    for (int w = 0; w < maxWorkers; w++) {
      weights.add(Pair.of(w < 2 ? 4 : Math.max(1, 4 >> (w - 1)), Generate.constant(w)));
    }
    Gen<Integer> worker = Generate.frequency(weights);
    Gen<Integer> lease = Generate.range(0, 2);
    Gen<Boolean> shortLease = Generate.pick(List.of(true, true, true, false));
    // QuickTheories tries the smallest draw first and the largest second: that is one claim, then
    // 30 steps of the last kind below, so the last kind is the cheap one, not the crash
    return Generate.frequency(
        List.of(
            weight(24, worker.zip(shortLease, Step.Claim::new)),
            weight(24, worker.zip(lease, Step.Complete::new)),
            weight(16, worker.zip(lease, Step.Deliver::new)),
            weight(4, worker.zip(lease, Step.Renew::new)),
            weight(4, worker.zip(lease, Step.Fail::new)),
            weight(1, worker.map(Step.Crash::new)),
            weight(8, worker.map(Step.Stall::new)),
            weight(8, worker.map(Step.Resume::new)),
            weight(16, Generate.constant(new Step.LeasesRunOut()))));
  }

  private static Pair<Integer, Gen<Step>> weight(int weight, Gen<? extends Step> steps) {
    return Pair.of(weight, steps.map(Step.class::cast));
  }
}
