package dev.fencing.testkit.property;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * The engine on a planted bug, without processes: a zombie commit needs a claim, the lease running
 * out, another worker's claim and the first worker's commit, in that order, anywhere in the
 * interleaving.
 */
class PropertySearchTest {

  /** Breaks COMMITS_ONLY_BY_CURRENT_OWNER when the zombie pattern occurs as a subsequence. */
  static final class PlantedBug implements Function<Interleaving, Execution> {
    final List<Interleaving> runs = new ArrayList<>();

    @Override
    public Execution apply(Interleaving interleaving) {
      runs.add(interleaving);
      return new Execution(
          interleaving,
          List.of(),
          zombieCommits(interleaving)
              ? List.of(
                  new Execution.Violation(Invariant.COMMITS_ONLY_BY_CURRENT_OWNER, 1, "planted"))
              : List.of());
    }

    private static boolean zombieCommits(Interleaving interleaving) {
      for (int zombie = 0; zombie < interleaving.workers(); zombie++) {
        int stage = 0;
        for (Step step : interleaving.steps()) {
          stage =
              switch (stage) {
                case 0 -> step instanceof Step.Claim && step.actor() == zombie ? 1 : 0;
                case 1 -> step instanceof Step.LeasesRunOut ? 2 : 1;
                case 2 -> step instanceof Step.Claim && step.actor() != zombie ? 3 : 2;
                case 3 -> step instanceof Step.Complete && step.actor() == zombie ? 4 : 3;
                default -> 4;
              };
        }
        if (stage == 4) {
          return true;
        }
      }
      return false;
    }
  }

  private static PropertySearch.Settings settings(long seed) {
    return new PropertySearch.Settings(seed, 200, Duration.ofSeconds(30));
  }

  @Test
  void aPlantedZombieIsFoundAndShrunkToItsFourSteps() {
    for (long seed = 1; seed <= 20; seed++) {
      PropertySearch.Result<Execution> result =
          PropertySearch.search(Interleavings.defaults(), settings(seed), new PlantedBug());

      assertThat(result).isInstanceOf(PropertySearch.Falsified.class);
      PropertySearch.Falsified<Execution> falsified = (PropertySearch.Falsified<Execution>) result;
      assertThat(falsified.invariant()).isEqualTo(Invariant.COMMITS_ONLY_BY_CURRENT_OWNER.name());
      Interleaving shrunk = falsified.shrunk().interleaving();
      assertThat(shrunk.steps())
          .as("seed %d: %s", seed, shrunk)
          .hasSize(4)
          .element(0)
          .isInstanceOf(Step.Claim.class);
      assertThat(shrunk.steps().get(0).actor()).isZero();
      assertThat(shrunk.steps().get(2).actor()).isEqualTo(1);
      assertThat(shrunk.steps().get(3)).isEqualTo(new Step.Complete(0, 0));
      assertThat(shrunk.workers()).isEqualTo(2);
      assertThat(shrunk.jobs()).isEqualTo(1);
      assertThat(falsified.shrinkTimedOut()).isFalse();
    }
  }

  @Test
  void everyInterleavingRunsAtMostOnceWhileShrinking() {
    PlantedBug property = new PlantedBug();
    PropertySearch.Falsified<Execution> falsified =
        (PropertySearch.Falsified<Execution>)
            PropertySearch.search(Interleavings.defaults(), settings(11), property);

    List<Interleaving> shrinkRuns =
        property.runs.subList(falsified.tryNumber(), property.runs.size());
    assertThat(new HashSet<>(shrinkRuns)).hasSameSizeAs(shrinkRuns);
    assertThat(shrinkRuns)
        .hasSize(falsified.shrinkRuns())
        .doesNotContain(falsified.found().interleaving());
    assertThat(falsified.shrinkRemembered()).isPositive();
  }

  @Test
  void theSeedReplaysTheSearch() {
    PropertySearch.Falsified<Execution> first =
        (PropertySearch.Falsified<Execution>)
            PropertySearch.search(Interleavings.defaults(), settings(5), new PlantedBug());
    PropertySearch.Falsified<Execution> again =
        (PropertySearch.Falsified<Execution>)
            PropertySearch.search(Interleavings.defaults(), settings(5), new PlantedBug());

    assertThat(again.tryNumber()).isEqualTo(first.tryNumber());
    assertThat(again.found().interleaving()).isEqualTo(first.found().interleaving());
    assertThat(again.shrunk().interleaving()).isEqualTo(first.shrunk().interleaving());
    assertThat(first.report())
        .startsWith("invariant COMMITS_ONLY_BY_CURRENT_OWNER broken by try " + first.tryNumber())
        .contains("(seed 5)")
        .contains("replay: -Dfencing.seed=5")
        .contains("1 invariant violation(s)");
  }

  @Test
  void aClaimThatOnlyTookAnotherJobOutOfTheWayGoesWithThatJob() {
    // planted: a tiny queue; a claim takes the first pending job, else a job whose short lease ran
    // out; the bug shows when another worker takes over the first claim's job
    Function<Interleaving, Execution> property =
        interleaving -> {
          int[] holder = new int[interleaving.jobs()];
          boolean[] expired = new boolean[interleaving.jobs()];
          java.util.Arrays.fill(holder, -1);
          boolean takenOver = false;
          for (Step step : interleaving.steps()) {
            if (step instanceof Step.LeasesRunOut) {
              for (int j = 0; j < holder.length; j++) {
                expired[j] = holder[j] >= 0;
              }
            } else if (step instanceof Step.Claim claim) {
              int j = 0;
              while (j < holder.length && holder[j] >= 0) {
                j++;
              }
              if (j == holder.length) {
                j = 0;
                while (j < holder.length && !expired[j]) {
                  j++;
                }
              }
              if (j < holder.length) {
                takenOver |= j == 0 && holder[0] >= 0 && holder[0] != claim.actor();
                holder[j] = claim.actor();
                expired[j] = false;
              }
            }
          }
          return new Execution(
              interleaving,
              List.of(),
              takenOver
                  ? List.of(new Execution.Violation(Invariant.EPOCHS_ONLY_GO_UP, 1, "planted"))
                  : List.of());
        };
    Interleaving found =
        new Interleaving(
            2,
            3,
            List.of(
                new Step.Claim(0, true),
                new Step.LeasesRunOut(),
                new Step.Claim(0, false),
                new Step.Claim(0, false),
                new Step.Claim(1, false)));

    Shrinker.Shrunk<Execution> shrunk =
        Shrinker.shrink(
            Interleavings.defaults(), property, property.apply(found), Duration.ofSeconds(10));

    assertThat(shrunk.smallest().interleaving())
        .isEqualTo(
            new Interleaving(
                2,
                1,
                List.of(
                    new Step.Claim(0, true), new Step.LeasesRunOut(), new Step.Claim(1, false))));
  }

  @Test
  void aFailureAtTheEndThatTookTheClockIsShrunkWithTheTimeMadeExplicit() {
    // planted: the found run failed because a short lease ran out by the clock alone; a rerun
    // fails only when time passes between w0's claim and w1's
    Interleaving found =
        new Interleaving(
            2,
            1,
            List.of(
                new Step.Claim(0, true),
                new Step.Deliver(0, 0),
                new Step.Claim(1, false),
                new Step.Complete(0, 0)));
    Function<Interleaving, Execution> property =
        interleaving -> {
          boolean fails = interleaving.equals(found) || PlantedBug.zombieCommits(interleaving);
          return new Execution(
              interleaving,
              List.of(),
              fails
                  ? List.of(
                      new Execution.Violation(Invariant.COMMITS_ONLY_BY_CURRENT_OWNER, 0, "end"))
                  : List.of());
        };

    Shrinker.Shrunk<Execution> shrunk =
        Shrinker.shrink(
            Interleavings.defaults(), property, property.apply(found), Duration.ofSeconds(10));

    assertThat(shrunk.smallest().interleaving().steps())
        .containsExactly(
            new Step.Claim(0, true),
            new Step.LeasesRunOut(),
            new Step.Claim(1, false),
            new Step.Complete(0, 0));
  }

  @Test
  void combinationsArePickedInOrderAndBounded() {
    assertThat(WorkerReductions.combinations(List.of(1, 2, 3), 2, 10))
        .containsExactly(List.of(1, 2), List.of(1, 3), List.of(2, 3));
    assertThat(WorkerReductions.combinations(List.of(1, 2, 3, 4, 5), 2, 4)).hasSize(4);
    assertThat(WorkerReductions.combinations(List.of(1, 2), 3, 10)).isEmpty();
  }

  @Test
  void shrinkingStopsAtItsWallClockBound() {
    PlantedBug bug = new PlantedBug();
    Function<Interleaving, Execution> slow =
        interleaving -> {
          try {
            Thread.sleep(20);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          return bug.apply(interleaving);
        };
    long start = System.nanoTime();
    PropertySearch.Falsified<Execution> falsified =
        (PropertySearch.Falsified<Execution>)
            PropertySearch.search(
                Interleavings.defaults(),
                new PropertySearch.Settings(11, 200, Duration.ofMillis(100)),
                slow);

    assertThat(falsified.shrinkTimedOut()).isTrue();
    assertThat(falsified.shrinkRuns()).isLessThanOrEqualTo(10);
    assertThat(falsified.report()).contains("stopped at the time bound");
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(20));
  }

  @Test
  void shrinkingKeepsTheInvariantTheFailureBroke() {
    // a crash after a claim loses a job; once that is found, a claim alone breaks another
    // invariant, which is no counterexample of the first and must not be taken as one
    boolean[] found = {false};
    Function<Interleaving, Execution> property =
        interleaving -> {
          boolean claims = interleaving.steps().stream().anyMatch(s -> s instanceof Step.Claim);
          boolean crashes = interleaving.steps().stream().anyMatch(s -> s instanceof Step.Crash);
          Invariant broken =
              claims && crashes
                  ? Invariant.NO_JOB_LOST
                  : claims && found[0] ? Invariant.EPOCHS_ONLY_GO_UP : null;
          found[0] |= broken == Invariant.NO_JOB_LOST;
          return new Execution(
              interleaving,
              List.of(),
              broken == null ? List.of() : List.of(new Execution.Violation(broken, 1, "planted")));
        };
    PropertySearch.Falsified<Execution> falsified =
        (PropertySearch.Falsified<Execution>)
            PropertySearch.search(Interleavings.defaults(), settings(2), property);

    assertThat(falsified.invariant()).isEqualTo(Invariant.NO_JOB_LOST.name());
    assertThat(falsified.shrunk().interleaving().steps())
        .hasSize(2)
        .hasAtLeastOneElementOfType(Step.Crash.class);
  }

  @Test
  void aSearchWithNoFailureRunsEveryTry() {
    Set<Interleaving> seen = new HashSet<>();
    PropertySearch.Result<Execution> result =
        PropertySearch.search(
            Interleavings.defaults(),
            new PropertySearch.Settings(3, 50, Duration.ZERO),
            interleaving -> {
              seen.add(interleaving);
              return ok(interleaving);
            });

    assertThat(result).isInstanceOf(PropertySearch.Passed.class);
    // QuickTheories tries the simplest values first and skips repeats of them
    assertThat(((PropertySearch.Passed<Execution>) result).tries())
        .isBetween(45, 50)
        .isEqualTo(seen.size());
  }

  @Test
  void anInterleavingThatCannotRunEndsTheSearchWithItsSeed() {
    assertThatThrownBy(
            () ->
                PropertySearch.search(
                    Interleavings.defaults(),
                    settings(9),
                    interleaving -> {
                      throw new InterleavingAbortedException("w1 died", null);
                    }))
        .isInstanceOf(InterleavingAbortedException.class)
        .hasMessage("seed 9 (replay: -Dfencing.seed=9), try 1: w1 died");
  }

  @Test
  void aPassIsOneLineWithTheCountAndTheSeedThatReplaysIt() {
    assertThat(new PropertySearch.Passed<Execution>(42, 200).report())
        .isEqualTo("200 interleavings passed (seed 42)");
  }

  @Test
  void badSettingsAreRefusedByName() {
    assertThatThrownBy(() -> new PropertySearch.Settings(1, 0, Duration.ZERO))
        .hasMessage("tries must be between 1 and 100000, but was 0");
    assertThatThrownBy(() -> new PropertySearch.Settings(1, 1, Duration.ofSeconds(-1)))
        .hasMessage("shrinkBound must be between 0 and 1 h, but was PT-1S");
    String old = System.getProperty(PropertySearch.SEED_PROPERTY);
    System.setProperty(PropertySearch.SEED_PROPERTY, "12x");
    try {
      assertThatThrownBy(PropertySearch.Settings::fromSystemProperties)
          .hasMessage("system property fencing.seed must be a whole number, but was \"12x\"");
      System.setProperty(PropertySearch.SEED_PROPERTY, "12");
      assertThat(PropertySearch.Settings.fromSystemProperties().seed()).isEqualTo(12);
    } finally {
      if (old == null) {
        System.clearProperty(PropertySearch.SEED_PROPERTY);
      } else {
        System.setProperty(PropertySearch.SEED_PROPERTY, old);
      }
    }
  }

  @Test
  void producerInterleavingsGoThroughTheSameEngineAndShrinkToTheirThreeSteps() {
    // planted: an older owner's send is accepted after another producer acquired the resource
    Function<ProducerInterleaving, ProducerRunner.Run> property =
        interleaving -> {
          List<Step> steps = interleaving.steps();
          int at = olderOwnerSendsAt(steps);
          List<String> replies = steps.stream().map(s -> "").toList();
          return new ProducerRunner.Run(
              interleaving,
              List.of(),
              at < 0 ? List.of() : List.of("RECEIVER_KEEPS_NEWEST at step " + at + ": planted"),
              at,
              replies);
        };
    for (long seed = 1; seed <= 10; seed++) {
      PropertySearch.Result<ProducerRunner.Run> result =
          PropertySearch.search(new ProducerInterleavings(30), settings(seed), property);

      assertThat(result).isInstanceOf(PropertySearch.Falsified.class);
      PropertySearch.Falsified<ProducerRunner.Run> falsified =
          (PropertySearch.Falsified<ProducerRunner.Run>) result;
      assertThat(falsified.invariant()).isEqualTo("RECEIVER_KEEPS_NEWEST");
      ProducerInterleaving shrunk = falsified.shrunk().interleaving();
      assertThat(shrunk.steps()).as("seed %d: %s", seed, shrunk).hasSize(3);
      assertThat(shrunk.producers()).isEqualTo(2);
      assertThat(shrunk.resources()).isEqualTo(1);
      assertThat(falsified.report()).contains("replay: -Dfencing.seed=" + seed);
    }
  }

  /** The index of a send by a producer after another one acquired its resource, or -1. */
  private static int olderOwnerSendsAt(List<Step> steps) {
    for (int i = 0; i < steps.size(); i++) {
      if (steps.get(i) instanceof Step.Acquire first) {
        for (int j = i + 1; j < steps.size(); j++) {
          if (steps.get(j) instanceof Step.Acquire second
              && second.resource() == first.resource()
              && second.producer() != first.producer()) {
            for (int k = j + 1; k < steps.size(); k++) {
              if (steps.get(k) instanceof Step.Send send
                  && send.producer() == first.producer()
                  && send.resource() == first.resource()) {
                return k;
              }
            }
          }
        }
      }
    }
    return -1;
  }

  @Test
  void aStepOfTheOtherDomainIsRefusedByTheInterleaving() {
    assertThatThrownBy(() -> new Interleaving(2, 1, List.of(new Step.Send(0, 0))))
        .hasMessage("steps[0] must be a worker's or a common step, but was P0 send R0");
    assertThatThrownBy(() -> new ProducerInterleaving(2, 1, List.of(new Step.Claim(0, true))))
        .hasMessage("step must fit the interleaving, but was w0 claims (short lease)");
    assertThatThrownBy(() -> new ProducerInterleaving(2, 1, List.of(new Step.Send(0, 1))))
        .hasMessage("step must fit the interleaving, but was P0 send R1");
  }

  private static Execution ok(Interleaving interleaving) {
    return new Execution(interleaving, List.of(), List.of());
  }
}
