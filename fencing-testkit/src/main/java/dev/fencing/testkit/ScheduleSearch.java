package dev.fencing.testkit;

import static org.quicktheories.QuickTheory.qt;

import java.security.SecureRandom;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

/**
 * The property engine: tries generated {@link Schedule}s until one breaks an {@link Invariant},
 * then shrinks it. Generation is QuickTheories', from one seed, so a seed replays the whole search;
 * shrinking is a domain shrinker ({@code Shrinker}) with memoised outcomes and a wall-clock bound.
 *
 * <pre>{@code
 * ScheduleSearch.Result result =
 *     ScheduleSearch.search(Schedules.defaults(), Settings.fromSystemProperties(), runner::run);
 * }</pre>
 */
public final class ScheduleSearch {

  /** The system property that replays a search: its value is the seed a failure printed. */
  public static final String SEED_PROPERTY = "fencing.seed";

  /** The system property for the number of schedules tried; default {@value #DEFAULT_TRIES}. */
  public static final String TRIES_PROPERTY = "fencing.tries";

  /** The system property for the shrinking bound in seconds; default 60. */
  public static final String SHRINK_SECONDS_PROPERTY = "fencing.shrink.seconds";

  /** The number of schedules tried unless told otherwise. */
  public static final int DEFAULT_TRIES = 200;

  private ScheduleSearch() {}

  /**
   * How to search.
   *
   * @param seed where generation starts; the same seed tries the same schedules in the same order
   * @param tries how many schedules to try, 1 to 100,000
   * @param shrinkBound how long shrinking may run, from 0 (no shrinking) to 1 hour
   */
  public record Settings(long seed, int tries, Duration shrinkBound) {

    /**
     * @throws IllegalArgumentException naming a value out of range
     */
    public Settings {
      if (tries < 1 || tries > 100_000) {
        throw new IllegalArgumentException("tries must be between 1 and 100000, but was " + tries);
      }
      Objects.requireNonNull(shrinkBound, "shrinkBound");
      if (shrinkBound.isNegative() || shrinkBound.compareTo(Duration.ofHours(1)) > 0) {
        throw new IllegalArgumentException(
            "shrinkBound must be between 0 and 1 h, but was " + shrinkBound);
      }
    }

    /**
     * Returns settings from {@value #SEED_PROPERTY} (else a fresh random seed), {@value
     * #TRIES_PROPERTY} and {@value #SHRINK_SECONDS_PROPERTY}.
     *
     * @throws IllegalArgumentException naming a property whose value is not a number or is out of
     *     range
     */
    public static Settings fromSystemProperties() {
      long seed = number(SEED_PROPERTY, new SecureRandom().nextLong());
      long tries = number(TRIES_PROPERTY, DEFAULT_TRIES);
      long shrink = number(SHRINK_SECONDS_PROPERTY, 60);
      try {
        return new Settings(
            seed,
            (int) Math.clamp(tries, Integer.MIN_VALUE, Integer.MAX_VALUE),
            Duration.ofSeconds(shrink));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            "system properties "
                + TRIES_PROPERTY
                + "/"
                + SHRINK_SECONDS_PROPERTY
                + ": "
                + e.getMessage(),
            e);
      }
    }

    private static long number(String property, long otherwise) {
      String value = System.getProperty(property);
      if (value == null || value.isBlank()) {
        return otherwise;
      }
      try {
        return Long.parseLong(value.strip());
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(
            "system property " + property + " must be a whole number, but was \"" + value + "\"",
            e);
      }
    }
  }

  /** What a search found. */
  public sealed interface Result {
    /** The seed that replays this search. */
    long seed();
  }

  /**
   * Every schedule tried kept every invariant.
   *
   * @param tries how many schedules ran
   */
  public record Passed(long seed, int tries) implements Result {

    /** Returns the line a pass prints: {@code 200 schedules passed (seed 42)}. */
    public String report() {
      return ProducerSearch.passed(tries, seed);
    }
  }

  /**
   * A schedule broke an invariant.
   *
   * @param tryNumber which try found it, from 1
   * @param found the first failing schedule's execution
   * @param shrunk the smallest schedule found that breaks the same invariant
   * @param shrinkRuns how many smaller schedules shrinking ran
   * @param shrinkRemembered how many more it considered again and answered from memory
   * @param shrinkTime how long shrinking took
   * @param shrinkTimedOut whether shrinking stopped at its bound
   */
  public record Falsified(
      long seed,
      int tryNumber,
      Execution found,
      Execution shrunk,
      int shrinkRuns,
      int shrinkRemembered,
      Duration shrinkTime,
      boolean shrinkTimedOut)
      implements Result {

    /** The invariant the shrunk schedule breaks (the first one the found schedule broke). */
    public Invariant invariant() {
      return found.violations().getFirst().invariant();
    }

    /** Returns what a person needs: the invariant, the shrunk timeline, and how to replay. */
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
          + " steps in "
          + shrinkTime.toMillis()
          + " ms ("
          + shrinkRuns
          + " schedules run, "
          + shrinkRemembered
          + " answered from memory"
          + (shrinkTimedOut ? "; stopped at the time bound" : "")
          + ")\nreplay: -D"
          + SEED_PROPERTY
          + "="
          + seed
          + "\n"
          + shrunk.report();
    }
  }

  /**
   * Runs {@code property} on up to {@code settings.tries()} schedules drawn from {@code schedules}
   * and shrinks the first that breaks an invariant.
   *
   * @param property runs one schedule; a {@link ScheduleAbortedException} it throws ends the search
   * @throws ScheduleAbortedException if a tried schedule could not be run to its end; its message
   *     is prefixed with the seed
   */
  public static Result search(
      Schedules schedules, Settings settings, Function<Schedule, Execution> property) {
    AtomicReference<Execution> failing = new AtomicReference<>();
    AtomicReference<ScheduleAbortedException> aborted = new AtomicReference<>();
    AtomicInteger tried = new AtomicInteger();
    try {
      qt().withFixedSeed(settings.seed())
          .withExamples(settings.tries())
          .withShrinkCycles(0)
          .forAll(schedules.generator())
          .check(
              schedule -> {
                if (failing.get() != null || aborted.get() != null) {
                  return false;
                }
                tried.incrementAndGet();
                try {
                  Execution execution = property.apply(schedule);
                  if (!execution.holds()) {
                    failing.set(execution);
                  }
                  return execution.holds();
                } catch (ScheduleAbortedException e) {
                  aborted.set(e);
                  return false;
                }
              });
    } catch (AssertionError expected) {
      // QuickTheories reports the falsified value; we report the shrunk one instead
    }
    if (aborted.get() != null) {
      throw new ScheduleAbortedException(
          "seed "
              + settings.seed()
              + " (replay: -D"
              + SEED_PROPERTY
              + "="
              + settings.seed()
              + "), try "
              + tried.get()
              + ": "
              + aborted.get().getMessage(),
          aborted.get());
    }
    Execution found = failing.get();
    if (found == null) {
      return new Passed(settings.seed(), tried.get());
    }
    long start = System.nanoTime();
    Shrinker.Shrunk shrunk = Shrinker.shrink(schedules, property, found, settings.shrinkBound());
    return new Falsified(
        settings.seed(),
        tried.get(),
        found,
        shrunk.smallest(),
        shrunk.ran(),
        shrunk.remembered(),
        Duration.ofNanos(System.nanoTime() - start),
        shrunk.timedOut());
  }
}
