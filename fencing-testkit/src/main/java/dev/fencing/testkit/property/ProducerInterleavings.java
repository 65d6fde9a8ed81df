package dev.fencing.testkit.property;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Function;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

/**
 * Which {@link ProducerInterleaving}s a property search draws, and how the {@link Shrinker}
 * simplifies them beyond deleting steps: fewer producers and resources, and a step replaced by
 * "leases run out" (a crash or a stall may only have let time pass).
 *
 * @param maxSteps the most steps, 1 to 1,000
 * @since 0.1
 */
public record ProducerInterleavings(int maxSteps)
    implements PropertyDomain<ProducerInterleaving, ProducerRunner.Run> {

  /**
   * @throws IllegalArgumentException if {@code maxSteps} is out of range
   */
  public ProducerInterleavings {
    if (maxSteps < 1 || maxSteps > 1_000) {
      throw new IllegalArgumentException(
          "maxSteps must be between 1 and 1000, but was " + maxSteps);
    }
  }

  /**
   * Returns the first {@code count} interleavings a search with {@code seed} would try, in order.
   */
  public List<ProducerInterleaving> sample(long seed, int count) {
    return PropertySearch.sample(generator(), seed, count);
  }

  /**
   * Draws 2-4 producers, 1-2 resources, up to {@code maxSteps} steps. The draw leans towards what
   * breaks fencing: three short leases in four, renewals, sends and releases mostly by producers
   * that acquired that resource earlier in the interleaving, and acquisitions mostly by a producer
   * other than the last one that tried, so that ownership changes hands and the older owner acts
   * afterwards.
   */
  @Override
  public Gen<ProducerInterleaving> generator() {
    // QuickTheories draws the seed of each interleaving, not its numbers one by one: it draws
    // extreme
    // values early (the second try would be 4 producers and 30 steps every time), and a long
    // producer interleaving with a crash costs seconds per shrinking run
    return Generate.longRange(Long.MIN_VALUE, Long.MAX_VALUE).map(seed -> draw(new Random(seed)));
  }

  private ProducerInterleaving draw(Random in) {
    int producers = 2 + below(in, 3);
    int resources = 1 + below(in, 2);
    int count = 1 + below(in, maxSteps);
    Map<Integer, List<Integer>> acquirers = new HashMap<>();
    List<Step> steps = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      int kind = below(in, 100);
      int p = below(in, producers);
      int r = below(in, resources);
      boolean shortLease = below(in, 4) < 3;
      List<Integer> earlier = acquirers.getOrDefault(r, List.of());
      // by weight: acquire 22, renew 12, release 4, stall 4, thaw 4, leases run out 20, crash 4,
      // send 30; QuickTheories draws the largest value early, so the last kind is a cheap one
      boolean acquire = kind < 22;
      boolean actsOnIt = kind >= 22 && kind < 38 || kind >= 70;
      if (actsOnIt && !earlier.isEmpty() && below(in, 10) < 8) {
        p = earlier.get(below(in, earlier.size()));
      }
      if (acquire && !earlier.isEmpty() && below(in, 10) < 7) {
        p = (earlier.getLast() + 1 + below(in, producers - 1)) % producers;
      }
      if (acquire) {
        acquirers.computeIfAbsent(r, x -> new ArrayList<>()).add(p);
      }
      steps.add(step(kind, p, r, shortLease));
    }
    return new ProducerInterleaving(producers, resources, steps);
  }

  private static Step step(int kind, int p, int r, boolean shortLease) {
    if (kind < 22) {
      return new Step.Acquire(p, r, shortLease);
    } else if (kind < 34) {
      return new Step.Extend(p, r, shortLease);
    } else if (kind < 38) {
      return new Step.Release(p, r);
    } else if (kind < 42) {
      return new Step.Stall(p);
    } else if (kind < 46) {
      return new Step.Resume(p);
    } else if (kind < 66) {
      return new Step.LeasesRunOut();
    } else if (kind < 70) {
      return new Step.Crash(p);
    }
    return new Step.Send(p, r);
  }

  /** A number from 0 to {@code n - 1}. */
  private static int below(Random in, int n) {
    return in.nextInt(n);
  }

  @Override
  public ProducerInterleaving withSteps(ProducerInterleaving like, List<Step> steps) {
    return new ProducerInterleaving(like.producers(), like.resources(), steps);
  }

  /**
   * "Leases run out" before every acquisition that succeeded: a lease that ran out by the clock
   * alone (a slow first call in a fresh JVM) then runs out on every rerun.
   */
  @Override
  public List<List<Step>> timeMadeExplicit(ProducerRunner.Run found, List<Step> prefix) {
    Step time = new Step.LeasesRunOut();
    List<Step> explicit = new ArrayList<>();
    for (int i = 0; i < prefix.size(); i++) {
      boolean acquired =
          prefix.get(i) instanceof Step.Acquire && found.replies().get(i).startsWith("acquired ");
      if (acquired && i > 0 && !prefix.get(i - 1).equals(time)) {
        explicit.add(time);
      }
      explicit.add(prefix.get(i));
    }
    return List.of(explicit);
  }

  @Override
  public List<PropertyDomain.Reduction<ProducerInterleaving>> reductions() {
    return List.of(
        ProducerInterleavings::fewerProducersAndResources, ProducerInterleavings::timeInstead);
  }

  /**
   * Producers and resources numbered in order of appearance, then as few of each as the steps name
   * (producers 0 and 1 share an owner name, so a renumbered interleaving may fail differently: it
   * is kept only if it still fails the same way).
   */
  private static List<ProducerInterleaving> fewerProducersAndResources(ProducerInterleaving best) {
    Map<Integer, Integer> producers = new LinkedHashMap<>();
    Map<Integer, Integer> resources = new LinkedHashMap<>();
    for (Step step : best.steps()) {
      if (!(step instanceof Step.LeasesRunOut)) {
        producers.putIfAbsent(step.actor(), producers.size());
      }
      if (step instanceof Step.ProducerAction action) {
        resources.putIfAbsent(action.resource(), resources.size());
      }
    }
    List<Step> renumbered =
        best.steps().stream().map(s -> renumber(s, producers::get, resources::get)).toList();
    return List.of(fitted(best, renumbered), fitted(best, best.steps()));
  }

  private static ProducerInterleaving fitted(ProducerInterleaving best, List<Step> steps) {
    int producers = steps.stream().mapToInt(Step::actor).max().orElse(0) + 1;
    int resources =
        steps.stream()
                .mapToInt(s -> s instanceof Step.ProducerAction a ? a.resource() : 0)
                .max()
                .orElse(0)
            + 1;
    return new ProducerInterleaving(
        Math.max(2, Math.min(producers, best.producers())),
        Math.min(resources, best.resources()),
        steps);
  }

  private static Step renumber(
      Step step, Function<Integer, Integer> producer, Function<Integer, Integer> resource) {
    return switch (step) {
      case Step.Acquire a ->
          new Step.Acquire(
              producer.apply(a.producer()), resource.apply(a.resource()), a.shortLease());
      case Step.Extend e ->
          new Step.Extend(
              producer.apply(e.producer()), resource.apply(e.resource()), e.shortLease());
      case Step.Send s -> new Step.Send(producer.apply(s.producer()), resource.apply(s.resource()));
      case Step.Release r ->
          new Step.Release(producer.apply(r.producer()), resource.apply(r.resource()));
      case Step.Stall s -> new Step.Stall(producer.apply(s.actor()));
      case Step.Resume r -> new Step.Resume(producer.apply(r.actor()));
      case Step.Crash c -> new Step.Crash(producer.apply(c.actor()));
      case Step.LeasesRunOut time -> time;
      case Step.WorkerAction worker ->
          throw new IllegalArgumentException("step must be a producer's, but was " + worker);
    };
  }

  /** Each step replaced by "leases run out": a crash or a stall may only have let time pass. */
  private static List<ProducerInterleaving> timeInstead(ProducerInterleaving best) {
    Step time = new Step.LeasesRunOut();
    List<ProducerInterleaving> out = new ArrayList<>();
    for (int i = 0; i < best.steps().size(); i++) {
      if (!best.steps().get(i).equals(time)) {
        List<Step> steps = new ArrayList<>(best.steps());
        steps.set(i, time);
        out.add(new ProducerInterleaving(best.producers(), best.resources(), steps));
      }
    }
    return out;
  }
}
