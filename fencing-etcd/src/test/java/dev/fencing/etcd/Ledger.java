package dev.fencing.etcd;

import dev.fencing.FencedOutcome;
import dev.fencing.FencedReceiver;
import dev.fencing.Ownership;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * What the failover test's producers did: every acquisition with its times, and every delivery to
 * the receiver with what the receiver answered, checked against what it had accepted before.
 */
final class Ledger {

  /**
   * One acquisition as its producer saw it. Written by the producer's thread only, read after the
   * producers stopped.
   */
  static final class Tenure {
    final String resource;
    final String owner;
    final long epoch;
    final Instant started;
    final Instant returned;

    /** Until when the producer may act: its last expiry, or when it began to release or lost it. */
    volatile Instant believedUntil;

    Tenure(
        String resource,
        String owner,
        long epoch,
        Instant started,
        Instant returned,
        Instant until) {
      this.resource = resource;
      this.owner = owner;
      this.epoch = epoch;
      this.started = started;
      this.returned = returned;
      this.believedUntil = until;
    }

    void endBy(Instant end) {
      if (end.isBefore(believedUntil)) {
        believedUntil = end;
      }
    }

    @Override
    public String toString() {
      return resource
          + "@"
          + epoch
          + " by "
          + owner
          + " ["
          + started
          + ", "
          + returned
          + "] until "
          + believedUntil;
    }
  }

  private final ConcurrentLinkedQueue<Tenure> tenures = new ConcurrentLinkedQueue<>();
  private final Map<String, Object> locks = new ConcurrentHashMap<>();
  private final Map<String, AtomicLong> newestAccepted = new ConcurrentHashMap<>();
  final LongAdder accepted = new LongAdder();
  final LongAdder refused = new LongAdder();
  final LongAdder staleAccepts = new LongAdder();

  Tenure acquired(Ownership ownership, Instant started, Instant returned) {
    Tenure tenure =
        new Tenure(
            ownership.resource(),
            ownership.owner(),
            ownership.epoch().value(),
            started,
            returned,
            ownership.expiresAt());
    tenures.add(tenure);
    return tenure;
  }

  int acquisitions() {
    return tenures.size();
  }

  /**
   * Delivers a message at {@code ownership}'s epoch; the delivery and the check of its answer
   * against the newest epoch accepted before are one step per resource, so their order is the
   * receiver's.
   *
   * @return whether the receiver accepted it
   */
  boolean deliver(FencedReceiver receiver, Ownership ownership, String payload) {
    synchronized (locks.computeIfAbsent(ownership.key(), k -> new Object())) {
      AtomicLong newest = newestAccepted.computeIfAbsent(ownership.key(), k -> new AtomicLong());
      FencedOutcome outcome = receiver.deliver(ownership, payload);
      if (outcome.isAccepted()) {
        accepted.increment();
        if (ownership.epoch().value() < newest.get()) {
          staleAccepts.increment();
        }
        newest.accumulateAndGet(ownership.epoch().value(), Math::max);
        return true;
      }
      refused.increment();
      return false;
    }
  }

  /** Pairs of acquisitions of one resource that share an epoch. */
  List<String> duplicateEpochs() {
    Set<String> seen = new HashSet<>();
    List<String> duplicates = new ArrayList<>();
    for (Tenure t : tenures) {
      if (!seen.add(t.resource + "@" + t.epoch)) {
        duplicates.add(t.toString());
      }
    }
    return duplicates;
  }

  /**
   * Acquisitions that started after another of the same resource returned, with no larger epoch.
   */
  List<String> backwardEpochs() {
    List<String> backwards = new ArrayList<>();
    for (List<Tenure> same : byResource().values()) {
      for (Tenure earlier : same) {
        for (Tenure later : same) {
          if (later.started.isAfter(earlier.returned) && later.epoch <= earlier.epoch) {
            backwards.add(earlier + " then " + later);
          }
        }
      }
    }
    return backwards;
  }

  /**
   * Acquisitions that returned while the previous holder (by epoch) could still believe it held the
   * resource: its expiry had not passed and it had not begun to release it.
   */
  List<String> overlaps() {
    List<String> overlaps = new ArrayList<>();
    for (List<Tenure> same : byResource().values()) {
      same.sort(Comparator.comparingLong(t -> t.epoch));
      for (int i = 1; i < same.size(); i++) {
        Tenure previous = same.get(i - 1);
        Tenure next = same.get(i);
        if (next.returned.isBefore(previous.believedUntil)) {
          overlaps.add(previous + " overlaps " + next);
        }
      }
    }
    return overlaps;
  }

  private Map<String, List<Tenure>> byResource() {
    Map<String, List<Tenure>> byResource = new HashMap<>();
    for (Tenure t : tenures) {
      byResource.computeIfAbsent(t.resource, r -> new ArrayList<>()).add(t);
    }
    return byResource;
  }
}
