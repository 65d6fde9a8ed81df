package dev.fencing.testkit;

import java.util.ArrayList;
import java.util.List;
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

  /** Returns a schedule drawn from {@code random}: up to {@code maxSteps} steps. */
  public static ProducerSchedule draw(Random random, int maxSteps) {
    int producers = 2 + random.nextInt(3);
    int resources = 1 + random.nextInt(3);
    int count = 1 + random.nextInt(maxSteps);
    List<Step> steps = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      int p = random.nextInt(producers);
      int r = random.nextInt(resources);
      int kind = random.nextInt(100);
      Kind k =
          kind < 25
              ? Kind.ACQUIRE
              : kind < 50
                  ? Kind.SEND
                  : kind < 63
                      ? Kind.RENEW
                      : kind < 70
                          ? Kind.RELEASE
                          : kind < 78
                              ? Kind.STALL
                              : kind < 86
                                  ? Kind.THAW
                                  : kind < 95 ? Kind.LEASES_RUN_OUT : Kind.CRASH;
      boolean shortLease = random.nextBoolean();
      steps.add(
          switch (k) {
            case STALL, THAW, CRASH -> new Step(k, p, 0, false);
            case LEASES_RUN_OUT -> new Step(k, 0, 0, false);
            case SEND, RELEASE -> new Step(k, p, r, false);
            case ACQUIRE, RENEW -> new Step(k, p, r, shortLease);
          });
    }
    return new ProducerSchedule(producers, resources, steps);
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
