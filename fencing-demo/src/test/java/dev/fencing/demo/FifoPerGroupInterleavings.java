package dev.fencing.demo;

import dev.fencing.demo.FifoPerGroupInterleaving.GroupedJob;
import dev.fencing.testkit.property.Interleavings;
import dev.fencing.testkit.property.PropertyDomain;
import dev.fencing.testkit.property.Step;
import java.util.ArrayList;
import java.util.List;
import org.quicktheories.api.Pair;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

/**
 * Which {@link FifoPerGroupInterleaving}s a search draws: a queue limited to one job under way per
 * group (two in a third of them), 2 to {@code maxJobs} jobs in 2 or 3 groups at random priorities
 * (so that a claim by priority would often start a later job of a group first), 2 or 3 workers, and
 * up to {@code maxSteps} steps: claims, completions, failures (at once or after a retry delay),
 * releases, stalls ({@code SIGSTOP}), resumptions, crashes ({@code SIGKILL}) and time passing.
 * Shrinking deletes steps, then tries the kit's worker reductions (fewer jobs, fewer workers, lease
 * #0), then a limit of 1, single jobs left out and priorities set to 0.
 *
 * @param runningPerGroup the queue's limit per group, 1 or 2
 * @param maxJobs the most jobs, 2 to 8
 * @param maxSteps the most steps, 1 to 1,000
 */
record FifoPerGroupInterleavings(int runningPerGroup, int maxJobs, int maxSteps)
    implements PropertyDomain<FifoPerGroupInterleaving, FifoPerGroupExecution> {

  private static final int MIN_WORKERS = 2;
  private static final int MAX_WORKERS = 3;
  private static final int MIN_JOBS = 2;

  /**
   * @throws IllegalArgumentException naming the bound out of range
   */
  FifoPerGroupInterleavings {
    if (runningPerGroup < 1 || runningPerGroup > 2) {
      throw new IllegalArgumentException(
          "runningPerGroup must be 1 or 2, but was " + runningPerGroup);
    }
    if (maxJobs < MIN_JOBS || maxJobs > 8) {
      throw new IllegalArgumentException("maxJobs must be between 2 and 8, but was " + maxJobs);
    }
    if (maxSteps < 1 || maxSteps > 1_000) {
      throw new IllegalArgumentException(
          "maxSteps must be between 1 and 1000, but was " + maxSteps);
    }
  }

  /** Returns the default: one job under way per group, up to 6 jobs and 25 steps. */
  static FifoPerGroupInterleavings defaults() {
    return new FifoPerGroupInterleavings(1, 6, 25);
  }

  @Override
  public Gen<FifoPerGroupInterleaving> generator() {
    Gen<List<GroupedJob>> jobs =
        Generate.range(2, 3)
            .zip(
                Generate.range(MIN_JOBS, maxJobs),
                (groups, count) -> jobsIn(List.of("a", "b", "c").subList(0, groups), count))
            .flatMap(g -> g);
    Gen<Step> step = steps();
    Gen<List<Step>> steps =
        Generate.range(1, maxSteps)
            .flatMap(
                n ->
                    in -> {
                      List<Step> drawn = new ArrayList<>(n);
                      for (int i = 0; i < n; i++) {
                        drawn.add(step.generate(in));
                      }
                      return drawn;
                    });
    return jobs.zip(
        steps, (j, s) -> FifoPerGroupInterleaving.of(MIN_WORKERS, runningPerGroup, j, s));
  }

  /** {@code count} jobs, each in one of {@code groups}, at a priority from 0 to 5. */
  private static Gen<List<GroupedJob>> jobsIn(List<String> groups, int count) {
    Gen<GroupedJob> job = Generate.pick(groups).zip(Generate.range(0, 5), GroupedJob::new);
    return in -> {
      List<GroupedJob> drawn = new ArrayList<>(count);
      for (int i = 0; i < count; i++) {
        drawn.add(job.generate(in));
      }
      return drawn;
    };
  }

  /** Single steps, weighted towards claims and completions; crashes are rare (a JVM start each). */
  private static Gen<Step> steps() {
    Gen<Integer> worker =
        Generate.frequency(
            List.of(
                Pair.of(4, Generate.constant(0)),
                Pair.of(4, Generate.constant(1)),
                Pair.of(2, Generate.constant(2))));
    Gen<Integer> lease = Generate.range(0, 2);
    Gen<Boolean> shortLease = Generate.pick(List.of(true, true, true, false));
    // QuickTheories tries the smallest draw first and the largest second, so the last kind is the
    // cheap one
    return Generate.frequency(
        List.of(
            weight(24, worker.zip(shortLease, Step.Claim::new)),
            weight(18, worker.zip(lease, Step.Complete::new)),
            weight(5, worker.zip(lease, Step.Fail::new)),
            weight(5, worker.zip(lease, FifoPerGroupInterleaving::failLater)),
            weight(5, worker.zip(lease, FifoPerGroupInterleaving::release)),
            weight(1, worker.map(Step.Crash::new)),
            weight(6, worker.map(Step.Stall::new)),
            weight(6, worker.map(Step.Resume::new)),
            weight(10, Generate.constant(new Step.LeasesRunOut()))));
  }

  private static Pair<Integer, Gen<Step>> weight(int weight, Gen<? extends Step> steps) {
    return Pair.of(weight, steps.map(Step.class::cast));
  }

  @Override
  public FifoPerGroupInterleaving withSteps(FifoPerGroupInterleaving like, List<Step> steps) {
    return FifoPerGroupInterleaving.of(MIN_WORKERS, runningPerGroup, like.jobs(), steps);
  }

  /**
   * Time passes just before the step that broke the invariant; else before every claim (a short
   * lease or a retry delay that ran out by the clock alone let a job start).
   */
  @Override
  public List<List<Step>> timeMadeExplicit(FifoPerGroupExecution found, List<Step> prefix) {
    List<Step> waited = new ArrayList<>(prefix.subList(0, prefix.size() - 1));
    waited.add(new Step.LeasesRunOut());
    waited.add(prefix.getLast());
    List<Step> beforeClaims = new ArrayList<>();
    for (Step step : prefix) {
      if (step instanceof Step.Claim
          && !beforeClaims.isEmpty()
          && !(beforeClaims.getLast() instanceof Step.LeasesRunOut)) {
        beforeClaims.add(new Step.LeasesRunOut());
      }
      beforeClaims.add(step);
    }
    return List.of(waited, beforeClaims);
  }

  @Override
  public List<Reduction<FifoPerGroupInterleaving>> reductions() {
    List<Reduction<FifoPerGroupInterleaving>> out = new ArrayList<>();
    // the kit's worker reductions work on the run; a run with fewer jobs keeps the first ones
    for (Reduction<dev.fencing.testkit.property.Interleaving> kit :
        new Interleavings(MIN_WORKERS, MAX_WORKERS, MIN_JOBS, 8, maxSteps).reductions()) {
      out.add(best -> kit.candidates(best.run()).stream().map(best::with).toList());
    }
    out.add(FifoPerGroupInterleavings::withoutOneJob);
    out.add(FifoPerGroupInterleavings::withPriorityZero);
    return out;
  }

  /** Each job left out in turn, the last first, keeping at least {@value #MIN_JOBS}. */
  private static List<FifoPerGroupInterleaving> withoutOneJob(FifoPerGroupInterleaving best) {
    List<FifoPerGroupInterleaving> out = new ArrayList<>();
    for (int i = best.jobs().size() - 1; i >= 0 && best.jobs().size() > MIN_JOBS; i--) {
      List<GroupedJob> jobs = new ArrayList<>(best.jobs());
      jobs.remove(i);
      out.add(FifoPerGroupInterleaving.of(MIN_WORKERS, best.runningPerGroup(), jobs, best.steps()));
    }
    return out;
  }

  /** Each job with a priority other than 0 at priority 0 instead. */
  private static List<FifoPerGroupInterleaving> withPriorityZero(FifoPerGroupInterleaving best) {
    List<FifoPerGroupInterleaving> out = new ArrayList<>();
    for (int i = 0; i < best.jobs().size(); i++) {
      GroupedJob job = best.jobs().get(i);
      if (job.priority() != 0) {
        List<GroupedJob> jobs = new ArrayList<>(best.jobs());
        jobs.set(i, new GroupedJob(job.group(), 0));
        out.add(
            FifoPerGroupInterleaving.of(MIN_WORKERS, best.runningPerGroup(), jobs, best.steps()));
      }
    }
    return out;
  }
}
