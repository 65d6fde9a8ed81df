package dev.fencing.testkit;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * One interleaving of producer processes over resources, for {@link OwnershipSafetyProperties}.
 * Producers 0 and 1 share the owner name {@code twin}: two processes may carry one name.
 *
 * @param producers how many producer processes, 2 to 4
 * @param resources how many resources, 1 to 3
 * @param steps what happens, in order
 */
public record ProducerSchedule(int producers, int resources, List<Step> steps) {

  /**
   * @throws IllegalArgumentException if a count is out of range or a step names a producer or
   *     resource that is not there
   */
  public ProducerSchedule {
    if (producers < 2 || producers > 4) {
      throw new IllegalArgumentException("producers must be 2 to 4, but was " + producers);
    }
    if (resources < 1 || resources > 3) {
      throw new IllegalArgumentException("resources must be 1 to 3, but was " + resources);
    }
    steps = List.copyOf(steps);
    for (Step step : steps) {
      if (step.producer() >= producers || step.resource() >= resources) {
        throw new IllegalArgumentException("step must fit the schedule, but was " + step);
      }
    }
  }

  /** Returns the owner name of producer {@code index}. */
  public static String ownerName(int index) {
    return index < 2 ? "twin" : "p" + index;
  }

  /**
   * Returns a schedule drawn from {@code random}: 2-4 producers, 1-2 resources, up to {@code
   * maxSteps} steps. The draw leans towards what breaks fencing: three short leases in four,
   * renewals, sends and releases mostly by producers that acquired that resource earlier in the
   * schedule, and acquisitions mostly by a producer other than the last one that tried, so that
   * ownership changes hands and the older owner acts afterwards.
   */
  public static ProducerSchedule draw(Random random, int maxSteps) {
    int producers = 2 + random.nextInt(3);
    int resources = 1 + random.nextInt(2);
    int count = 1 + random.nextInt(maxSteps);
    Map<Integer, List<Integer>> acquirers = new HashMap<>();
    List<Step> steps = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      Kind kind = kind(random.nextInt(100));
      int p = random.nextInt(producers);
      int r = random.nextInt(resources);
      List<Integer> earlier = acquirers.getOrDefault(r, List.of());
      boolean actsOnIt = kind == Kind.SEND || kind == Kind.RENEW || kind == Kind.RELEASE;
      if (actsOnIt && !earlier.isEmpty() && random.nextInt(10) < 8) {
        p = earlier.get(random.nextInt(earlier.size()));
      }
      if (kind == Kind.ACQUIRE && !earlier.isEmpty() && random.nextInt(10) < 7) {
        int last = earlier.getLast();
        p = (last + 1 + random.nextInt(producers - 1)) % producers;
      }
      if (kind == Kind.ACQUIRE) {
        acquirers.computeIfAbsent(r, x -> new ArrayList<>()).add(p);
      }
      boolean shortLease = random.nextInt(4) < 3;
      steps.add(
          switch (kind) {
            case STALL, THAW, CRASH -> new Step(kind, p, 0, false);
            case LEASES_RUN_OUT -> new Step(kind, 0, 0, false);
            case SEND, RELEASE -> new Step(kind, p, r, false);
            case ACQUIRE, RENEW -> new Step(kind, p, r, shortLease);
          });
    }
    return new ProducerSchedule(producers, resources, steps);
  }

  /**
   * Step kinds by weight: acquire 22, send 30, renew 12, release 4, stall 4, thaw 4, leases run out
   * 20, crash 4.
   */
  private static Kind kind(int percent) {
    int[] limits = {22, 52, 64, 68, 72, 76, 96, 100};
    Kind[] kinds = {
      Kind.ACQUIRE,
      Kind.SEND,
      Kind.RENEW,
      Kind.RELEASE,
      Kind.STALL,
      Kind.THAW,
      Kind.LEASES_RUN_OUT,
      Kind.CRASH
    };
    for (int i = 0; i < limits.length; i++) {
      if (percent < limits[i]) {
        return kinds[i];
      }
    }
    throw new IllegalArgumentException("percent must be below 100, but was " + percent);
  }

  /** What a step does. */
  public enum Kind {
    /** The producer acquires the resource, with a short or a long lease. */
    ACQUIRE,
    /** The producer renews its newest ownership of the resource. */
    RENEW,
    /** The producer delivers to the receiver with its newest ownership, lost or not. */
    SEND,
    /** The producer releases its newest ownership. */
    RELEASE,
    /** {@code SIGSTOP}: the producer's later steps wait until it is thawed. */
    STALL,
    /** {@code SIGCONT}: its waiting steps run now. */
    THAW,
    /** {@code SIGKILL}, then the producer starts again under its name, owning nothing. */
    CRASH,
    /** Time passes until every short lease has run out. */
    LEASES_RUN_OUT
  }

  /**
   * One step.
   *
   * @param kind what it does
   * @param producer which producer, from 0 (0 for {@link Kind#LEASES_RUN_OUT})
   * @param resource which resource, from 0 (0 where none)
   * @param shortLease for acquire and renew: the short lease, else a long one
   */
  public record Step(Kind kind, int producer, int resource, boolean shortLease) {

    @Override
    public String toString() {
      return switch (kind) {
        case LEASES_RUN_OUT -> "leases run out";
        case STALL, THAW, CRASH -> kind.name().toLowerCase() + " P" + producer;
        case SEND, RELEASE -> "P" + producer + " " + kind.name().toLowerCase() + " R" + resource;
        case ACQUIRE, RENEW ->
            "P"
                + producer
                + " "
                + kind.name().toLowerCase()
                + " R"
                + resource
                + (shortLease ? " (short lease)" : " (long lease)");
      };
    }
  }
}
