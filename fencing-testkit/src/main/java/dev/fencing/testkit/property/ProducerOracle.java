package dev.fencing.testkit.property;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Judges each producer reply against {@link OwnershipInvariant}, in the order they happened. */
final class ProducerOracle {

  /** A violation: which invariant, at which step, and what happened. */
  record Violation(OwnershipInvariant invariant, int step, String detail) {
    @Override
    public String toString() {
      return invariant + " at step " + step + ": " + detail;
    }
  }

  private record Holder(int producer, long epoch, long confirmedNanos, boolean longLease) {}

  private final Duration longLease;
  private final Map<String, Long> newestAcquired = new HashMap<>();
  private final Map<String, Long> newestAccepted = new HashMap<>();
  private final Map<String, Holder> holders = new HashMap<>();
  private final Map<Integer, Integer> disturbances = new HashMap<>();
  private final Map<Holder, Integer> disturbancesAtConfirm = new HashMap<>();
  private final List<Violation> violations = new ArrayList<>();

  ProducerOracle(Duration longLease) {
    this.longLease = longLease;
  }

  List<Violation> violations() {
    return violations;
  }

  /** The producer was stalled or crashed: its ownerships may end early on some backends. */
  void disturbed(int producer) {
    disturbances.merge(producer, 1, Integer::sum);
  }

  /** Judges {@code reply} to {@code step}, run by {@code producer}. */
  void judge(int step, int producer, Step.ProducerAction what, String reply) {
    String[] words = reply.split(" ");
    if (words.length < 3) {
      return;
    }
    String resource = words[1];
    long epoch;
    try {
      epoch = Long.parseLong(words[2]);
    } catch (NumberFormatException e) {
      return;
    }
    long newest = newestAcquired.getOrDefault(resource, 0L);
    switch (words[0]) {
      case "acquired" -> {
        String acquired = "P" + producer + " acquired " + resource + " at epoch " + epoch;
        if (epoch <= newest) {
          violate(
              OwnershipInvariant.EPOCHS_ONLY_GO_UP,
              step,
              acquired + ", but epoch " + newest + " was handed out before");
        }
        Holder holder = holders.get(resource);
        if (holder != null && stillHeld(holder)) {
          violate(
              OwnershipInvariant.ONE_OWNER_AT_A_TIME,
              step,
              acquired
                  + " while P"
                  + holder.producer()
                  + " held it at epoch "
                  + holder.epoch()
                  + " under a long lease it confirmed "
                  + Duration.ofNanos(System.nanoTime() - holder.confirmedNanos()).toMillis()
                  + " ms ago");
        }
        newestAcquired.put(resource, Math.max(newest, epoch));
        confirm(resource, producer, epoch, what);
      }
      case "renewed" -> {
        if (epoch < newest) {
          violate(
              OwnershipInvariant.ONLY_THE_NEWEST_OWNER_RENEWS_OR_RELEASES,
              step,
              outdated(producer, "renewed", resource, epoch, newest));
        } else {
          confirm(resource, producer, epoch, what);
        }
      }
      case "released" -> {
        if (epoch < newest && words.length == 3) {
          violate(
              OwnershipInvariant.ONLY_THE_NEWEST_OWNER_RENEWS_OR_RELEASES,
              step,
              outdated(producer, "released", resource, epoch, newest));
        }
        Holder holder = holders.get(resource);
        if (holder != null && holder.epoch() == epoch) {
          holders.remove(resource);
        }
      }
      case "accepted" -> {
        long accepted = newestAccepted.getOrDefault(resource, 0L);
        if (epoch < accepted) {
          violate(
              OwnershipInvariant.RECEIVER_KEEPS_NEWEST,
              step,
              "the receiver accepted epoch "
                  + epoch
                  + " for "
                  + resource
                  + " after it had accepted epoch "
                  + accepted);
        }
        newestAccepted.put(resource, Math.max(accepted, epoch));
      }
      default -> {
        // held, lost, refused, superseded, none: nothing changed
      }
    }
  }

  private void confirm(String resource, int producer, long epoch, Step.ProducerAction what) {
    Holder holder = new Holder(producer, epoch, System.nanoTime(), !shortLease(what));
    holders.put(resource, holder);
    disturbancesAtConfirm.put(holder, disturbances.getOrDefault(producer, 0));
  }

  /** Whether {@code step} asked for the short lease; false for a step that asks for none. */
  static boolean shortLease(Step.ProducerAction step) {
    return switch (step) {
      case Step.Acquire a -> a.shortLease();
      case Step.Extend e -> e.shortLease();
      case Step.Send s -> false;
      case Step.Release r -> false;
    };
  }

  private boolean stillHeld(Holder holder) {
    boolean undisturbed =
        disturbances.getOrDefault(holder.producer(), 0).equals(disturbancesAtConfirm.get(holder));
    boolean recent = System.nanoTime() - holder.confirmedNanos() < longLease.dividedBy(2).toNanos();
    return holder.longLease() && undisturbed && recent;
  }

  private void violate(OwnershipInvariant invariant, int step, String detail) {
    violations.add(new Violation(invariant, step, detail));
  }

  /** Says that producer {@code producer} {@code did} {@code resource} with an outdated epoch. */
  private static String outdated(
      int producer, String did, String resource, long epoch, long newest) {
    return "P"
        + producer
        + " "
        + did
        + " "
        + resource
        + " at epoch "
        + epoch
        + ", but epoch "
        + newest
        + " acquired it since";
  }
}
