package dev.fencing.testkit;

import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.RandomDistribution;
import net.jqwik.api.Tuple;
import net.jqwik.api.Tuple.Tuple2;

/**
 * jqwik arbitraries for {@link Schedule}s: 2 to 4 workers over 1 to 3 jobs, up to 30 steps of
 * claims, renewals, deliveries, commits, failures, stalls and resumes, lease expiries and crashes.
 * Failing schedules shrink towards fewer workers, jobs and steps.
 */
public final class Schedules {

  private Schedules() {}

  /** Returns the default arbitrary: 2-4 workers, 1-3 jobs, 1-30 steps. */
  public static Arbitrary<Schedule> schedules() {
    return schedules(2, 4, 1, 3, 30);
  }

  /**
   * Returns schedules within the given bounds.
   *
   * @throws IllegalArgumentException if a bound is out of range or a minimum exceeds its maximum
   */
  public static Arbitrary<Schedule> schedules(
      int minWorkers, int maxWorkers, int minJobs, int maxJobs, int maxSteps) {
    new Schedule(maxWorkers, maxJobs, List.of());
    new Schedule(minWorkers, minJobs, List.of());
    if (minWorkers > maxWorkers || minJobs > maxJobs || maxSteps < 1) {
      throw new IllegalArgumentException(
          "bounds must be ordered and maxSteps at least 1, but were workers "
              + minWorkers
              + ".."
              + maxWorkers
              + ", jobs "
              + minJobs
              + ".."
              + maxJobs
              + ", maxSteps "
              + maxSteps);
    }
    // Steps are drawn for the most workers; a schedule has as many workers as its steps name (at
    // least minWorkers). So shrinking a schedule is shrinking a plain list: steps go, worker
    // numbers fall, and the worker count follows.
    return Combinators.combine(
            Arbitraries.integers().between(minJobs, maxJobs),
            steps(maxWorkers)
                .list()
                .ofMinSize(1)
                .ofMaxSize(maxSteps)
                // uniform lengths: the default bias towards short lists rarely lets a lease
                // expire, a new owner take over and the old one come back in one schedule
                .withSizeDistribution(RandomDistribution.uniform()))
        .as(
            (jobs, steps) ->
                new Schedule(
                    Math.max(minWorkers, steps.stream().mapToInt(Step::worker).max().orElse(0) + 1),
                    jobs,
                    steps));
  }

  /**
   * Returns single steps for {@code workers} workers, weighted towards claims and commits; crashes
   * are rare because each one costs a JVM start.
   */
  public static Arbitrary<Step> steps(int workers) {
    // w0 and w1 act most often, so that two workers meet on the same job; w2, w3... less
    List<Tuple2<Integer, Integer>> weights = new ArrayList<>();
    for (int w = 0; w < workers; w++) {
      weights.add(Tuple.of(w < 2 ? 4 : Math.max(1, 4 >> (w - 1)), w));
    }
    Arbitrary<Integer> worker = Arbitraries.frequency(weights);
    Arbitrary<Integer> lease = Arbitraries.integers().between(0, 2);
    return Arbitraries.frequencyOf(
        java.util.List.of(
            weight(
                24,
                Combinators.combine(worker, Arbitraries.of(true, true, true, false))
                    .as(Step.Claim::new)),
            weight(24, Combinators.combine(worker, lease).as(Step.Complete::new)),
            weight(16, Combinators.combine(worker, lease).as(Step.Deliver::new)),
            weight(4, Combinators.combine(worker, lease).as(Step.Renew::new)),
            weight(4, Combinators.combine(worker, lease).as(Step.Fail::new)),
            weight(16, Arbitraries.just(new Step.LeasesRunOut())),
            weight(8, worker.map(Step.Stall::new)),
            weight(8, worker.map(Step.Resume::new)),
            weight(1, worker.map(Step.Crash::new))));
  }

  private static Tuple2<Integer, Arbitrary<Step>> weight(
      int weight, Arbitrary<? extends Step> steps) {
    return Tuple.of(weight, steps.map(Step.class::cast));
  }
}
