package dev.fencing.demo;

import dev.fencing.JobOptions;
import dev.fencing.QueueLimits;
import dev.fencing.testkit.property.Interleaving;
import dev.fencing.testkit.property.Step;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * An interleaving of a queue limited to {@code runningPerGroup} jobs at a time per group, first in
 * first out ({@code withMaxRunningPerGroup(runningPerGroup).withFifoPerGroup()}): the grouped jobs
 * enqueued before the first step, in this order (so in increasing job id), and the workers' steps.
 *
 * <p>The steps are the kit's {@link Step}s, read for this queue: the kit has no step that gives a
 * job back, and delivering to a receiver shows nothing about the order of starts, so {@link
 * Step.Deliver} is a <em>release</em> here and {@link Step.Renew} a <em>failure that waits for its
 * retry</em> ({@value #RETRY_DELAY_MILLIS} ms); {@link Step.Fail} fails with no retry delay. Use
 * {@link #release} and {@link #failLater} to write them, and {@link #describe} to read them.
 *
 * @param runningPerGroup how many jobs of a group may be under way at once, 1 or 2
 * @param jobs the jobs, in enqueue order, at least 1 and as many as {@code run.jobs()}
 * @param run the workers and steps; its job count is {@code jobs.size()}
 */
record FifoPerGroupInterleaving(
    int runningPerGroup, List<FifoPerGroupInterleaving.GroupedJob> jobs, Interleaving run) {

  /** The retry delay of a {@link #failLater} step. */
  static final long RETRY_DELAY_MILLIS = 250;

  /**
   * One job to enqueue.
   *
   * @param group its group, {@code a}, {@code b} or {@code c}
   * @param priority its priority, within {@link JobOptions#MIN_PRIORITY} to {@link
   *     JobOptions#MAX_PRIORITY}
   */
  record GroupedJob(String group, int priority) {

    /**
     * @throws IllegalArgumentException naming the group or priority that is not one of these
     */
    GroupedJob {
      if (!List.of("a", "b", "c").contains(group)) {
        throw new IllegalArgumentException("group must be a, b or c, but was " + group);
      }
      if (priority < JobOptions.MIN_PRIORITY || priority > JobOptions.MAX_PRIORITY) {
        throw new IllegalArgumentException(
            "priority must be between "
                + JobOptions.MIN_PRIORITY
                + " and "
                + JobOptions.MAX_PRIORITY
                + ", but was "
                + priority);
      }
    }

    JobOptions options() {
      return JobOptions.inGroup(group).withPriority(priority);
    }

    @Override
    public String toString() {
      return group + "/p" + priority;
    }
  }

  /**
   * @throws IllegalArgumentException if the limit is not 1 or 2, or the job count and the run's
   *     disagree
   */
  FifoPerGroupInterleaving {
    if (runningPerGroup < 1 || runningPerGroup > 2) {
      throw new IllegalArgumentException(
          "runningPerGroup must be 1 or 2, but was " + runningPerGroup);
    }
    jobs = List.copyOf(Objects.requireNonNull(jobs, "jobs"));
    Objects.requireNonNull(run, "run");
    if (jobs.size() != run.jobs()) {
      throw new IllegalArgumentException(
          "jobs must be as many as the run's " + run.jobs() + ", but were " + jobs);
    }
  }

  /** Returns an interleaving of these jobs and steps, naming at least {@code minWorkers}. */
  static FifoPerGroupInterleaving of(
      int minWorkers, int runningPerGroup, List<GroupedJob> jobs, List<Step> steps) {
    return new FifoPerGroupInterleaving(
        runningPerGroup, jobs, Interleaving.naming(minWorkers, jobs.size(), steps));
  }

  /** The limits of this interleaving's queue. */
  QueueLimits limits() {
    return QueueLimits.NONE.withMaxRunningPerGroup(runningPerGroup).withFifoPerGroup();
  }

  List<Step> steps() {
    return run.steps();
  }

  /** Returns these jobs with {@code run}'s steps and workers, and its first {@code run.jobs()}. */
  FifoPerGroupInterleaving with(Interleaving other) {
    return new FifoPerGroupInterleaving(runningPerGroup, jobs.subList(0, other.jobs()), other);
  }

  /** The worker gives its job back ({@code release}): the job waits again, at once. */
  static Step release(int worker, int lease) {
    return new Step.Deliver(worker, lease);
  }

  /** The worker fails its job to be retried after {@value #RETRY_DELAY_MILLIS} ms. */
  static Step failLater(int worker, int lease) {
    return new Step.Renew(worker, lease);
  }

  /** Returns {@code step} as this queue's runner reads it. */
  static String describe(Step step) {
    return switch (step) {
      case Step.Deliver d -> "w" + d.worker() + " releases lease #" + d.lease();
      case Step.Renew r ->
          "w"
              + r.worker()
              + " fails under lease #"
              + r.lease()
              + ", retry in "
              + RETRY_DELAY_MILLIS
              + " ms";
      case Step.Fail f -> "w" + f.worker() + " fails under lease #" + f.lease() + ", retry at once";
      case Step.LeasesRunOut l -> "time passes: every short lease and retry delay runs out";
      default -> step.toString();
    };
  }

  @Override
  public String toString() {
    List<String> lines = new ArrayList<>();
    for (int i = 0; i < run.steps().size(); i++) {
      lines.add("\n  " + (i + 1) + ". " + describe(run.steps().get(i)));
    }
    return run.workers()
        + " workers, "
        + runningPerGroup
        + " job(s) under way per group, jobs in enqueue order (group/priority) "
        + jobs
        + ":"
        + String.join("", lines);
  }
}
