package dev.fencing.testkit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.function.Function;

/**
 * Tries producer schedules drawn from a seed and shrinks the first that breaks an invariant by
 * deleting steps (halves, quarters, ... single steps) while the smaller schedule still breaks the
 * same invariant, within a time bound.
 */
public final class ProducerSearch {

  /** The system property that sets the number of schedules tried; default 30. */
  public static final String TRIES_PROPERTY = "fencing.producer.tries";

  private ProducerSearch() {}

  /**
   * Returns the one line a passing search prints, the same for workers and producers: {@code 200
   * schedules passed (seed 42)}; {@code -Dfencing.seed=42} replays it.
   */
  static String passed(int tries, long seed) {
    return tries + " schedules passed (seed " + seed + ")";
  }

  /**
   * A schedule that broke an invariant.
   *
   * @param seed the seed that replays the search ({@code -Dfencing.seed=...})
   * @param tryNumber which try found it, from 1
   * @param found the failing run
   * @param shrunk the smallest failing run found, breaking the same invariant
   * @param shrinkRuns how many smaller schedules shrinking ran
   */
  public record Falsified(
      long seed,
      int tryNumber,
      ProducerRunner.Run found,
      ProducerRunner.Run shrunk,
      int shrinkRuns) {

    /** The invariant broken. */
    public String invariant() {
      return found.firstInvariant();
    }

    /** What a person needs: the invariant, the shrunk timeline, how to replay. */
    public String report() {
      return "invariant "
          + invariant()
          + " broken by try "
          + tryNumber
          + " (seed "
          + seed
          + "); shrunk from "
          + found.schedule().steps().size()
          + " to "
          + shrunk.schedule().steps().size()
          + " steps ("
          + shrinkRuns
          + " schedules run)\nreplay: -D"
          + ScheduleSearch.SEED_PROPERTY
          + "="
          + seed
          + "\n"
          + shrunk.report();
    }
  }

  /**
   * Runs up to {@code tries} schedules of at most {@code maxSteps} steps drawn from {@code seed};
   * returns the first failure, shrunk, or empty if all held.
   */
  public static Optional<Falsified> search(
      long seed,
      int tries,
      int maxSteps,
      Duration shrinkBound,
      Function<ProducerSchedule, ProducerRunner.Run> property) {
    Random random = new Random(seed);
    for (int i = 1; i <= tries; i++) {
      ProducerRunner.Run run = property.apply(ProducerSchedule.draw(random, maxSteps));
      if (!run.holds()) {
        return Optional.of(shrink(seed, i, run, shrinkBound, property));
      }
    }
    return Optional.empty();
  }

  private static Falsified shrink(
      long seed,
      int tryNumber,
      ProducerRunner.Run found,
      Duration bound,
      Function<ProducerSchedule, ProducerRunner.Run> property) {
    Shrinking shrinking = new Shrinking(found, System.nanoTime() + bound.toNanos(), property);
    int cut = found.firstViolationStep() + 1;
    if (cut > 0 && cut < found.schedule().steps().size()) {
      List<ProducerSchedule.Step> upToIt = found.schedule().steps().subList(0, cut);
      if (!shrinking.tryCandidate(upToIt)) {
        shrinking.tryCandidate(timeMadeExplicit(upToIt, found.replies()));
      }
    }
    boolean smaller = true;
    while (smaller && shrinking.inTime()) {
      smaller = shrinking.deleteChunks() || shrinking.leasesRunOutInstead();
    }
    return new Falsified(seed, tryNumber, found, shrinking.best, shrinking.runs);
  }

  /** One shrink: the smallest failing run so far, and the candidates already judged. */
  private static final class Shrinking {
    private final String invariant;
    private final long deadline;
    private final Function<ProducerSchedule, ProducerRunner.Run> property;
    private final Map<List<ProducerSchedule.Step>, Boolean> seen = new HashMap<>();
    private ProducerRunner.Run best;
    private int runs;

    Shrinking(
        ProducerRunner.Run found,
        long deadline,
        Function<ProducerSchedule, ProducerRunner.Run> property) {
      this.invariant = found.firstInvariant();
      this.deadline = deadline;
      this.property = property;
      this.best = found;
    }

    boolean inTime() {
      return System.nanoTime() < deadline;
    }

    /** Deletes halves, quarters, ... single steps; returns whether one deletion still failed. */
    boolean deleteChunks() {
      List<ProducerSchedule.Step> steps = best.schedule().steps();
      for (int chunk = Math.max(1, steps.size() / 2); chunk >= 1; chunk /= 2) {
        for (int from = 0; from + chunk <= steps.size() && inTime(); from++) {
          List<ProducerSchedule.Step> candidate = new ArrayList<>(steps.subList(0, from));
          candidate.addAll(steps.subList(from + chunk, steps.size()));
          if (tryCandidate(candidate)) {
            return true;
          }
        }
      }
      return false;
    }

    /**
     * Replaces one step by "leases run out": a crash or a stall may only have let time pass.
     * Returns whether a replacement still failed.
     */
    boolean leasesRunOutInstead() {
      List<ProducerSchedule.Step> steps = best.schedule().steps();
      ProducerSchedule.Step time =
          new ProducerSchedule.Step(ProducerSchedule.Kind.LEASES_RUN_OUT, 0, 0, false);
      for (int i = 0; i < steps.size() && inTime(); i++) {
        if (!steps.get(i).equals(time)) {
          List<ProducerSchedule.Step> candidate = new ArrayList<>(steps);
          candidate.set(i, time);
          if (tryCandidate(candidate)) {
            return true;
          }
        }
      }
      return false;
    }

    /** Runs {@code steps} unless judged before; keeps it if it breaks the same invariant. */
    boolean tryCandidate(List<ProducerSchedule.Step> steps) {
      if (steps.isEmpty() || seen.containsKey(steps)) {
        return false;
      }
      ProducerRunner.Run run = property.apply(withSteps(best, List.copyOf(steps)));
      runs++;
      boolean fails = !run.holds() && run.firstInvariant().equals(invariant);
      seen.put(List.copyOf(steps), fails);
      if (fails) {
        best = run;
      }
      return fails;
    }
  }

  /**
   * Returns {@code steps} with "leases run out" before every acquisition that succeeded: a lease
   * that ran out by the clock alone (a slow first call in a fresh JVM) then runs out on every
   * rerun.
   */
  private static List<ProducerSchedule.Step> timeMadeExplicit(
      List<ProducerSchedule.Step> steps, List<String> replies) {
    ProducerSchedule.Step time =
        new ProducerSchedule.Step(ProducerSchedule.Kind.LEASES_RUN_OUT, 0, 0, false);
    List<ProducerSchedule.Step> explicit = new ArrayList<>();
    for (int i = 0; i < steps.size(); i++) {
      boolean acquired =
          steps.get(i).kind() == ProducerSchedule.Kind.ACQUIRE
              && replies.get(i).startsWith("acquired ");
      if (acquired && i > 0 && !steps.get(i - 1).equals(time)) {
        explicit.add(time);
      }
      explicit.add(steps.get(i));
    }
    return explicit;
  }

  private static ProducerSchedule withSteps(
      ProducerRunner.Run run, List<ProducerSchedule.Step> steps) {
    return new ProducerSchedule(run.schedule().producers(), run.schedule().resources(), steps);
  }
}
