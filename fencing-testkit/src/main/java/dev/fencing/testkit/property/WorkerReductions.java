package dev.fencing.testkit.property;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The worker domain's reductions, tried by the {@link Shrinker} after deleting steps: fewer jobs
 * (with as many claims fewer), workers renumbered in order of appearance and one worker's steps
 * handed to a lower one, and lease #0 for every step.
 */
final class WorkerReductions {

  /** How many ways to drop claims along with jobs are tried per job count. */
  private static final int MAX_CLAIM_DROPS = 20;

  private final int minWorkers;
  private final int minJobs;

  private WorkerReductions(int minWorkers, int minJobs) {
    this.minWorkers = minWorkers;
    this.minJobs = minJobs;
  }

  /** Returns the reductions for interleavings of at least these workers and jobs. */
  static List<PropertyDomain.Reduction<Interleaving>> of(int minWorkers, int minJobs) {
    WorkerReductions reductions = new WorkerReductions(minWorkers, minJobs);
    return List.of(reductions::fewerJobs, reductions::fewerWorkers, reductions::firstLeases);
  }

  private Interleaving of(int jobs, List<Step> steps) {
    return Interleaving.naming(minWorkers, jobs, steps);
  }

  /**
   * Fewer jobs, alone or with as many claims fewer: a claim that only took a job out of the way
   * goes with the job it took.
   */
  private List<Interleaving> fewerJobs(Interleaving best) {
    List<Step> steps = best.steps();
    List<Integer> claims = new ArrayList<>();
    for (int i = 0; i < steps.size(); i++) {
      if (steps.get(i) instanceof Step.Claim) {
        claims.add(i);
      }
    }
    List<Interleaving> out = new ArrayList<>();
    for (int jobs = minJobs; jobs < best.jobs(); jobs++) {
      out.add(of(jobs, steps));
      for (List<Integer> drop : combinations(claims, best.jobs() - jobs, MAX_CLAIM_DROPS)) {
        List<Step> kept = new ArrayList<>(steps);
        drop.reversed().forEach(i -> kept.remove((int) i));
        if (!kept.isEmpty()) {
          out.add(of(jobs, kept));
        }
      }
    }
    return out;
  }

  /** Returns up to {@code limit} ways to pick {@code k} of {@code from}, each in order. */
  static List<List<Integer>> combinations(List<Integer> from, int k, int limit) {
    List<List<Integer>> out = new ArrayList<>();
    pick(from, k, 0, new ArrayList<>(), out, limit);
    return out;
  }

  private static void pick(
      List<Integer> from,
      int k,
      int start,
      List<Integer> chosen,
      List<List<Integer>> out,
      int limit) {
    if (out.size() >= limit) {
      return;
    }
    if (chosen.size() == k) {
      out.add(List.copyOf(chosen));
      return;
    }
    for (int i = start; i < from.size(); i++) {
      chosen.add(from.get(i));
      pick(from, k, i + 1, chosen, out, limit);
      chosen.removeLast();
    }
  }

  /**
   * First the same interleaving with workers numbered in order of appearance, then each worker's
   * steps handed to a lower one, the highest worker first.
   */
  private List<Interleaving> fewerWorkers(Interleaving best) {
    Map<Integer, Integer> order = new LinkedHashMap<>();
    best.steps().stream()
        .filter(s -> !(s instanceof Step.LeasesRunOut))
        .forEach(s -> order.putIfAbsent(s.actor(), order.size()));
    List<Interleaving> out = new ArrayList<>();
    out.add(of(best.jobs(), renumber(best.steps(), order::get)));
    int named = best.steps().stream().mapToInt(Step::actor).max().orElse(0);
    for (int from = named; from > 0; from--) {
      for (int to = 0; to < from; to++) {
        int f = from;
        int t = to;
        out.add(of(best.jobs(), renumber(best.steps(), w -> w == f ? t : w)));
      }
    }
    return out;
  }

  /** Each step that picks a lease, with lease #0 instead. */
  private List<Interleaving> firstLeases(Interleaving best) {
    List<Interleaving> out = new ArrayList<>();
    for (int i = 0; i < best.steps().size(); i++) {
      Step simpler = withFirstLease(best.steps().get(i));
      if (!simpler.equals(best.steps().get(i))) {
        List<Step> steps = new ArrayList<>(best.steps());
        steps.set(i, simpler);
        out.add(of(best.jobs(), steps));
      }
    }
    return out;
  }

  private static List<Step> renumber(List<Step> steps, Function<Integer, Integer> to) {
    return steps.stream()
        .<Step>map(
            s ->
                switch (s) {
                  case Step.Claim c -> new Step.Claim(to.apply(c.worker()), c.shortLease());
                  case Step.Renew r -> new Step.Renew(to.apply(r.worker()), r.lease());
                  case Step.Deliver d -> new Step.Deliver(to.apply(d.worker()), d.lease());
                  case Step.Complete c -> new Step.Complete(to.apply(c.worker()), c.lease());
                  case Step.Fail f -> new Step.Fail(to.apply(f.worker()), f.lease());
                  case Step.Stall st -> new Step.Stall(to.apply(st.actor()));
                  case Step.Resume r -> new Step.Resume(to.apply(r.actor()));
                  case Step.Crash c -> new Step.Crash(to.apply(c.actor()));
                  case Step.LeasesRunOut l -> l;
                  case Step.ProducerAction p ->
                      throw new IllegalArgumentException(
                          "steps must be a worker's, but one was " + p);
                })
        .toList();
  }

  private static Step withFirstLease(Step step) {
    return switch (step) {
      case Step.Renew r -> new Step.Renew(r.worker(), 0);
      case Step.Deliver d -> new Step.Deliver(d.worker(), 0);
      case Step.Complete c -> new Step.Complete(c.worker(), 0);
      case Step.Fail f -> new Step.Fail(f.worker(), 0);
      default -> step;
    };
  }
}
