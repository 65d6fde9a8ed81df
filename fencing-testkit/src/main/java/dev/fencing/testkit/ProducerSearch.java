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
    long deadline = System.nanoTime() + bound.toNanos();
    String invariant = found.firstInvariant();
    Map<List<ProducerSchedule.Step>, Boolean> seen = new HashMap<>();
    ProducerRunner.Run best = found;
    int runs = 0;
    boolean smaller = true;
    while (smaller && System.nanoTime() < deadline) {
      smaller = false;
      List<ProducerSchedule.Step> steps = best.schedule().steps();
      for (int chunk = Math.max(1, steps.size() / 2); chunk >= 1 && !smaller; chunk /= 2) {
        for (int from = 0; from + chunk <= steps.size() && System.nanoTime() < deadline; from++) {
          List<ProducerSchedule.Step> candidate = new ArrayList<>(steps.subList(0, from));
          candidate.addAll(steps.subList(from + chunk, steps.size()));
          if (candidate.isEmpty() || seen.containsKey(candidate)) {
            continue;
          }
          ProducerSchedule schedule =
              new ProducerSchedule(
                  best.schedule().producers(), best.schedule().resources(), candidate);
          ProducerRunner.Run run = property.apply(schedule);
          runs++;
          boolean fails = !run.holds() && run.firstInvariant().equals(invariant);
          seen.put(candidate, fails);
          if (fails) {
            best = run;
            smaller = true;
            break;
          }
        }
      }
    }
    return new Falsified(seed, tryNumber, found, best, runs);
  }
}
