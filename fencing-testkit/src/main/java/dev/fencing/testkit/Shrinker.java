package dev.fencing.testkit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Shrinks a failing schedule by delta debugging over its steps: it cuts the schedule at the step
 * that broke the invariant, deletes chunks of steps (halves, quarters, ... single steps), then
 * tries fewer jobs (with as many claims fewer), workers renumbered in order of appearance, one
 * worker's steps handed to a lower worker, and lease #0 for every step. A candidate is kept when it
 * still breaks the same invariant. Each schedule costs seconds of real processes, so every outcome
 * is memoised, and shrinking stops at a wall-clock bound with the smallest schedule so far.
 */
final class Shrinker {

  /** How many ways to drop claims along with jobs are tried per job count. */
  private static final int MAX_CLAIM_DROPS = 20;

  private final Schedules schedules;
  private final Function<Schedule, Execution> property;
  private final Invariant invariant;
  private final long deadline;
  private final Map<Schedule, Execution> seen = new HashMap<>();
  private Schedule current;
  private int ran;
  private int remembered;
  private boolean timedOut;

  private Shrinker(
      Schedules schedules,
      Function<Schedule, Execution> property,
      Invariant invariant,
      Duration bound) {
    this.schedules = schedules;
    this.property = property;
    this.invariant = invariant;
    this.deadline = System.nanoTime() + bound.toNanos();
  }

  /** What shrinking found, and what it cost. */
  record Shrunk(Execution smallest, int ran, int remembered, boolean timedOut) {}

  /** Returns the smallest schedule found that breaks the first invariant {@code found} broke. */
  static Shrunk shrink(
      Schedules schedules,
      Function<Schedule, Execution> property,
      Execution found,
      Duration bound) {
    Shrinker shrinker =
        new Shrinker(schedules, property, found.violations().getFirst().invariant(), bound);
    shrinker.seen.put(found.schedule(), found);
    shrinker.current = found.schedule();
    Execution smallest = shrinker.run(found);
    return new Shrunk(smallest, shrinker.ran, shrinker.remembered, shrinker.timedOut);
  }

  private Execution run(Execution found) {
    Execution best = cutAtTheViolation(found);
    boolean progress = true;
    while (progress && !timedOut) {
      Execution before = best;
      best = deleteChunks(best);
      best = fewerJobs(best);
      best = fewerWorkers(best);
      best = firstLeases(best);
      progress = !best.schedule().equals(before.schedule());
    }
    return best;
  }

  /**
   * Steps after the one that broke the invariant cannot matter, unless they may (the end checks),
   * so the first candidate ends at that step. A lease may also have run out between two steps by
   * the clock alone, on a slow machine; so the second candidate makes that explicit, with time
   * passing just before the step, and the failure stops depending on timing.
   */
  private Execution cutAtTheViolation(Execution found) {
    int at =
        found.violations().stream()
            .filter(v -> v.invariant() == invariant)
            .mapToInt(Execution.Violation::step)
            .findFirst()
            .orElse(0);
    if (at <= 0) {
      return found;
    }
    List<Step> steps = found.schedule().steps();
    Execution prefix = tryCandidate(found.schedule().jobs(), steps.subList(0, at));
    if (prefix != null) {
      return prefix;
    }
    List<Step> waited = new ArrayList<>(steps.subList(0, at - 1));
    waited.add(new Step.LeasesRunOut());
    waited.add(steps.get(at - 1));
    Execution explicit = tryCandidate(found.schedule().jobs(), waited);
    return explicit != null ? explicit : found;
  }

  private Execution deleteChunks(Execution best) {
    for (int size = Math.max(1, best.schedule().steps().size() / 2); size >= 1; size /= 2) {
      int i = 0;
      while (i < best.schedule().steps().size() && !timedOut) {
        List<Step> steps = new ArrayList<>(best.schedule().steps());
        steps.subList(i, Math.min(steps.size(), i + size)).clear();
        Execution candidate = tryCandidate(best.schedule().jobs(), steps);
        if (candidate != null) {
          best = candidate;
        } else {
          i += size;
        }
      }
    }
    return best;
  }

  /**
   * Fewer jobs, alone or with as many claims fewer: a claim that only took a job out of the way
   * goes with the job it took.
   */
  private Execution fewerJobs(Execution best) {
    List<Step> steps = best.schedule().steps();
    List<Integer> claims = new ArrayList<>();
    for (int i = 0; i < steps.size(); i++) {
      if (steps.get(i) instanceof Step.Claim) {
        claims.add(i);
      }
    }
    for (int jobs = schedules.minJobs(); jobs < best.schedule().jobs() && !timedOut; jobs++) {
      Execution candidate = tryCandidate(jobs, steps);
      if (candidate != null) {
        return candidate;
      }
      int fewer = best.schedule().jobs() - jobs;
      for (List<Integer> drop : combinations(claims, fewer, MAX_CLAIM_DROPS)) {
        List<Step> kept = new ArrayList<>(steps);
        drop.reversed().forEach(i -> kept.remove((int) i));
        candidate = tryCandidate(jobs, kept);
        if (candidate != null) {
          return candidate;
        }
        if (timedOut) {
          break;
        }
      }
    }
    return best;
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

  private Execution fewerWorkers(Execution best) {
    // first the same schedule with workers numbered in order of appearance, then each worker's
    // steps handed to a lower one
    Map<Integer, Integer> order = new LinkedHashMap<>();
    best.schedule().steps().stream()
        .filter(s -> !(s instanceof Step.LeasesRunOut))
        .forEach(s -> order.putIfAbsent(s.worker(), order.size()));
    Execution renumbered = tryCandidate(best.schedule().jobs(), renumber(best, order::get));
    if (renumbered != null) {
      best = renumbered;
    }
    int named = best.schedule().steps().stream().mapToInt(Step::worker).max().orElse(0);
    for (int from = named; from > 0 && !timedOut; from--) {
      for (int to = 0; to < from && !timedOut; to++) {
        int f = from;
        int t = to;
        Execution candidate =
            tryCandidate(best.schedule().jobs(), renumber(best, w -> w == f ? t : w));
        if (candidate != null) {
          best = candidate;
          break;
        }
      }
    }
    return best;
  }

  private Execution firstLeases(Execution best) {
    List<Step> steps = new ArrayList<>(best.schedule().steps());
    for (int i = 0; i < steps.size() && !timedOut; i++) {
      Step simpler = withFirstLease(steps.get(i));
      if (simpler.equals(steps.get(i))) {
        continue;
      }
      List<Step> candidateSteps = new ArrayList<>(steps);
      candidateSteps.set(i, simpler);
      Execution candidate = tryCandidate(best.schedule().jobs(), candidateSteps);
      if (candidate != null) {
        best = candidate;
        steps = candidateSteps;
      }
    }
    return best;
  }

  private static List<Step> renumber(Execution best, Function<Integer, Integer> to) {
    return best.schedule().steps().stream()
        .<Step>map(
            s ->
                switch (s) {
                  case Step.Claim c -> new Step.Claim(to.apply(c.worker()), c.shortLease());
                  case Step.Renew r -> new Step.Renew(to.apply(r.worker()), r.lease());
                  case Step.Deliver d -> new Step.Deliver(to.apply(d.worker()), d.lease());
                  case Step.Complete c -> new Step.Complete(to.apply(c.worker()), c.lease());
                  case Step.Fail f -> new Step.Fail(to.apply(f.worker()), f.lease());
                  case Step.Stall st -> new Step.Stall(to.apply(st.worker()));
                  case Step.Resume r -> new Step.Resume(to.apply(r.worker()));
                  case Step.Crash c -> new Step.Crash(to.apply(c.worker()));
                  case Step.LeasesRunOut l -> l;
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

  /**
   * Returns the candidate's execution if it breaks the invariant (and makes it the one to beat),
   * else null. Every caller keeps what this returns.
   */
  private Execution tryCandidate(int jobs, List<Step> steps) {
    Schedule candidate = schedules.of(jobs, steps);
    if (steps.isEmpty() || candidate.equals(current)) {
      return null;
    }
    Execution execution = seen.get(candidate);
    if (execution != null) {
      remembered++;
    } else {
      if (System.nanoTime() - deadline > 0) {
        timedOut = true;
        return null;
      }
      ran++;
      try {
        execution = property.apply(candidate);
      } catch (ScheduleAbortedException e) {
        // a candidate that cannot run to its end shows nothing about the invariant
        execution = new Execution(candidate, List.of(e.getMessage()), List.of());
      }
      seen.put(candidate, execution);
    }
    if (execution.violations().stream().noneMatch(v -> v.invariant() == invariant)) {
      return null;
    }
    current = candidate;
    return execution;
  }
}
