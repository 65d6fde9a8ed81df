package dev.fencing.testkit.memory;

import dev.fencing.JobState;
import dev.fencing.QueueLimits;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeMap;

/**
 * What a {@link MemoryStore} needs to obey a queue's {@link QueueLimits}: the claim order (strict
 * or aged), the running limit's room, the groups' startable jobs and the rates' token buckets. Not
 * thread-safe: used under the store's lock, as PostgreSQL uses the queue's limit lock.
 */
final class MemoryLimits {

  private final Map<List<String>, Bucket> buckets = new HashMap<>();

  /**
   * The claim order: by priority (an expired lease at 0), then oldest ready, then id; with a
   * priority aging, by ready time moved back by the priority times the aging, then id.
   */
  static Comparator<MemoryJob> order(QueueLimits limit) {
    return limit
        .priorityAging()
        .map(
            aging ->
                Comparator.<MemoryJob, Instant>comparing(
                        j -> j.readyAt().minus(aging.multipliedBy(j.rank())))
                    .thenComparingLong(j -> j.id))
        .orElse(
            Comparator.comparingInt(MemoryJob::rank)
                .reversed()
                .thenComparing(MemoryJob::readyAt)
                .thenComparingLong(j -> j.id));
  }

  /**
   * How many more leases the queue's running limit allows beside its valid ones (a running job
   * whose lease has not run out); {@link Integer#MAX_VALUE} without a limit.
   */
  static int room(QueueLimits limit, Collection<MemoryJob> open, Instant now) {
    OptionalInt max = limit.runningLimit();
    if (max.isEmpty()) {
      return Integer.MAX_VALUE;
    }
    long valid =
        open.stream().filter(j -> j.state() == JobState.RUNNING && !j.expired(now)).count();
    return (int) Math.max(0, max.getAsInt() - valid);
  }

  /**
   * The pending jobs of a group that its group's limits let start now: of each group, as many as
   * its running limit leaves room for beside its jobs under way (running, lease valid or not) and
   * its bucket holds tokens; with FIFO, its oldest waiting job only (its head), when due: one start
   * per group per claim. Every pending grouped job when the queue limits no group.
   */
  Set<Long> startable(
      String queue,
      QueueLimits limit,
      Collection<MemoryJob> open,
      Comparator<MemoryJob> order,
      Instant now) {
    Map<String, List<MemoryJob>> waiting = new TreeMap<>();
    Map<String, Integer> underWay = new HashMap<>();
    for (MemoryJob job : open) {
      if (job.group == null) {
        continue;
      }
      if (job.state() == JobState.RUNNING) {
        underWay.merge(job.group, 1, Integer::sum);
      } else if (job.state() == JobState.PENDING) {
        waiting.computeIfAbsent(job.group, g -> new ArrayList<>()).add(job);
      }
    }
    Set<Long> startable = new HashSet<>();
    for (Map.Entry<String, List<MemoryJob>> group : waiting.entrySet()) {
      List<MemoryJob> jobs = group.getValue();
      long room = Integer.MAX_VALUE;
      if (limit.runningLimitPerGroup().isPresent()) {
        room = limit.runningLimitPerGroup().getAsInt() - underWay.getOrDefault(group.getKey(), 0);
      }
      if (limit.ratePerGroup().isPresent()) {
        room =
            Math.min(room, bucket(queue, group.getKey(), limit.ratePerGroup().get(), now).whole());
      }
      if (limit.fifoPerGroup()) {
        jobs.sort(Comparator.comparingLong(j -> j.id));
      } else {
        jobs.removeIf(j -> !j.claimable(now));
        jobs.sort(order);
      }
      for (MemoryJob job : jobs) {
        if (room <= 0 || !job.claimable(now)) {
          break;
        }
        startable.add(job.id);
        // with FIFO, the head only: one start per group per claim, in enqueue order
        room = limit.fifoPerGroup() ? 0 : room - 1;
      }
    }
    return startable;
  }

  /**
   * The token bucket of a rate of {@code queue} ({@code group} "" for the queue's own), refilled.
   */
  Bucket bucket(String queue, String group, QueueLimits.Rate rate, Instant now) {
    Bucket bucket =
        buckets.computeIfAbsent(List.of(queue, group), k -> new Bucket(rate.starts(), now));
    bucket.refill(rate, now);
    return bucket;
  }

  /** Tokens of a rate: at most its starts, refilled evenly over its window. */
  static final class Bucket {
    private double tokens;
    private Instant refilledAt;

    Bucket(double tokens, Instant refilledAt) {
      this.tokens = tokens;
      this.refilledAt = refilledAt;
    }

    void refill(QueueLimits.Rate rate, Instant now) {
      long micros = Math.max(0, ChronoUnit.MICROS.between(refilledAt, now));
      double perMicros = rate.per().toNanos() / 1_000.0;
      tokens = Math.min(rate.starts(), tokens + micros * rate.starts() / perMicros);
      refilledAt = now;
    }

    int whole() {
      return (int) Math.floor(tokens + 1e-9);
    }

    void take(int n) {
      tokens -= n;
    }
  }
}
