package dev.fencing.demo;

import dev.fencing.FencedQueue;
import dev.fencing.JobSnapshot;
import dev.fencing.JobState;
import dev.fencing.demo.FifoPerGroupExecution.Invariant;
import dev.fencing.demo.FifoPerGroupExecution.Violation;
import dev.fencing.demo.FifoPerGroupInterleaving.GroupedJob;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * Checks one interleaving's {@link Invariant}s against the hand-outs the workers report and the
 * jobs' rows as the database holds them ({@link FencedQueue#find}), leases judged at the database's
 * {@code clock_timestamp()}. Each invariant is reported once per group or job, at the step it
 * broke.
 */
final class FifoPerGroupOracle {

  private final int runningPerGroup;
  private final Map<Long, GroupedJob> jobs;
  private final FencedQueue queue;
  private final LongSupplier databaseMillis;
  private final Consumer<String> timeline;
  private final Set<Long> handedOut = new HashSet<>();

  /** Jobs a release or a failure of theirs gave back since they were last handed out. */
  private final Set<Long> givenBack = new HashSet<>();

  private final Map<Long, JobSnapshot> rows = new HashMap<>();
  private final List<Violation> violations = new ArrayList<>();
  private final Set<String> reported = new HashSet<>();

  /**
   * @param jobs the interleaving's jobs by id, in enqueue order
   * @param databaseMillis reads the database's {@code clock_timestamp()}
   * @param timeline where each violation is noted as it is found
   */
  FifoPerGroupOracle(
      int runningPerGroup,
      Map<Long, GroupedJob> jobs,
      FencedQueue queue,
      LongSupplier databaseMillis,
      Consumer<String> timeline) {
    this.runningPerGroup = runningPerGroup;
    this.jobs = new LinkedHashMap<>(jobs);
    this.queue = queue;
    this.databaseMillis = databaseMillis;
    this.timeline = timeline;
  }

  List<Violation> violations() {
    return List.copyOf(violations);
  }

  /** The latest time, on the database clock, at which a waiting job read last becomes due. */
  long lastDueMillis() {
    return rows.values().stream()
        .filter(row -> row.state() == JobState.PENDING)
        .mapToLong(row -> row.runAt().toEpochMilli())
        .max()
        .orElse(Long.MIN_VALUE);
  }

  /**
   * A worker reported that {@code jobId} was handed out to it at {@code epoch}: first starts must
   * come in id order within the group, and no earlier job of the group may be waiting now.
   */
  void handedOut(int step, long jobId, long epoch) {
    GroupedJob job = jobs.get(jobId);
    givenBack.remove(jobId);
    if (handedOut.add(jobId)) {
      for (long earlier : earlierOfTheGroup(jobId)) {
        if (!handedOut.contains(earlier)) {
          violate(
              Invariant.FIFO_FIRST_STARTS,
              step,
              job.group(),
              "job "
                  + jobId
                  + " ("
                  + job
                  + ") was handed out first, before job "
                  + earlier
                  + " ("
                  + jobs.get(earlier)
                  + ") of its group, enqueued earlier, had ever been");
        }
      }
    }
    observe(step);
    for (long earlier : earlierOfTheGroup(jobId)) {
      JobSnapshot row = rows.get(earlier);
      // waiting for its first start, or given back: an expired job (which an append-only claim
      // may put back, pending) keeps its group's place and is not waiting for a start
      if (row.state() == JobState.PENDING && (row.epoch() == 0 || givenBack.contains(earlier))) {
        violate(
            Invariant.EARLIER_JOBS_NOT_WAITING,
            step,
            "job " + jobId,
            "job "
                + jobId
                + " ("
                + job
                + ") was handed out at epoch "
                + epoch
                + " while job "
                + earlier
                + " ("
                + jobs.get(earlier)
                + "), enqueued earlier in its group, waited in the database"
                + (row.epoch() == 0 ? ", never handed out" : " at epoch " + row.epoch())
                + ", due at "
                + row.runAt());
      }
    }
  }

  /** A release or a failure of {@code jobId} was accepted: it waits for its group's turn again. */
  void givenBack(long jobId) {
    givenBack.add(jobId);
  }

  /** Reads every job's row, then checks that no group has more jobs under way than its limit. */
  void observe(int step) {
    long now = databaseMillis.getAsLong();
    for (long id : jobs.keySet()) {
      rows.put(
          id,
          queue.find(id).orElseThrow(() -> new IllegalStateException("job " + id + " is gone")));
    }
    Map<String, List<String>> underWay = new HashMap<>();
    Map<String, Integer> valid = new HashMap<>();
    rows.forEach(
        (id, row) -> {
          if (row.state() == JobState.RUNNING) {
            String group = jobs.get(id).group();
            boolean leaseValid =
                row.leaseExpiresAt() != null && row.leaseExpiresAt().toEpochMilli() > now;
            underWay
                .computeIfAbsent(group, g -> new ArrayList<>())
                .add(
                    "job "
                        + id
                        + " at epoch "
                        + row.epoch()
                        + " by "
                        + row.owner()
                        + (leaseValid ? ", lease valid" : ", lease ran out"));
            valid.merge(group, leaseValid ? 1 : 0, Integer::sum);
          }
        });
    underWay.forEach(
        (group, running) -> {
          if (running.size() > runningPerGroup) {
            violate(
                Invariant.GROUP_LIMIT_KEPT,
                step,
                group,
                "group "
                    + group
                    + " has "
                    + running.size()
                    + " jobs under way, above its limit of "
                    + runningPerGroup
                    + " ("
                    + valid.get(group)
                    + " with a valid lease at clock_timestamp()): "
                    + running);
          }
        });
  }

  private List<Long> earlierOfTheGroup(long jobId) {
    String group = jobs.get(jobId).group();
    return jobs.keySet().stream()
        .filter(id -> id < jobId && jobs.get(id).group().equals(group))
        .toList();
  }

  private void violate(Invariant invariant, int step, String subject, String detail) {
    if (reported.add(invariant + "/" + subject)) {
      violations.add(new Violation(invariant, step, detail));
      timeline.accept("VIOLATION " + invariant + ": " + detail);
    }
  }
}
