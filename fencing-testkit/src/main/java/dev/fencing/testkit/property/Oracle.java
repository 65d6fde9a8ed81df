package dev.fencing.testkit.property;

import dev.fencing.FencedQueue;
import dev.fencing.FencedReceiver;
import dev.fencing.Job;
import dev.fencing.JobSnapshot;
import dev.fencing.JobState;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.LongFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/** Checks the {@link Invariant}s against what the workers replied and what the database holds. */
final class Oracle {

  /** A job's row and the receiver's newest receipt for it, read after an action. */
  record State(@Nullable JobSnapshot job, FencedReceiver.@Nullable Receipt receipt) {
    long epoch() {
      return job == null ? 0 : job.epoch();
    }

    long receiverEpoch() {
      return receipt == null ? 0 : receipt.epoch().value();
    }
  }

  private static final Pattern EPOCH = Pattern.compile("\"epoch\":\\s*(\\d+)");
  private static final Pattern WORKER = Pattern.compile("\"worker\":\\s*\"([^\"]*)\"");

  private final List<Long> jobs;
  private final LongFunction<State> reader;
  private final Map<Long, State> current = new HashMap<>();
  private final Map<Long, Long> highestClaim = new HashMap<>();
  private final Map<Long, Long> highestDelivery = new HashMap<>();
  private final List<Execution.Violation> violations = new ArrayList<>();
  private final Set<String> reported = new HashSet<>();

  /** "job/epoch/kind" of every fail or release that landed: gave its job back. */
  private final Set<String> gaveBack = new HashSet<>();

  Oracle(List<Long> jobs, LongFunction<State> reader) {
    this.jobs = List.copyOf(jobs);
    this.reader = reader;
    jobs.forEach(id -> current.put(id, reader.apply(id)));
  }

  List<Execution.Violation> violations() {
    return List.copyOf(violations);
  }

  State current(long jobId) {
    return current.get(jobId);
  }

  /** Every job's state as last read, in the order the jobs were enqueued. */
  List<State> currentStates() {
    return jobs.stream().map(current::get).toList();
  }

  /** Reports the running limit exceeded, as {@link RunningLimitWatch} saw it. */
  void limitExceeded(int step, String detail) {
    violate(Invariant.VALID_LEASES_WITHIN_LIMIT, step, "limit", detail);
  }

  void claimed(int step, long jobId, long epoch) {
    long before = highestClaim.getOrDefault(jobId, 0L);
    if (epoch <= before) {
      violate(
          Invariant.EPOCHS_ONLY_GO_UP,
          step,
          "job " + jobId,
          "job " + jobId + " was claimed at epoch " + epoch + " after a claim at epoch " + before);
    }
    highestClaim.merge(jobId, epoch, Math::max);
  }

  void delivering(long jobId, long epoch) {
    highestDelivery.merge(jobId, epoch, Math::max);
  }

  void committed(
      int step, long jobId, long epoch, String owner, String kind, State before, String reply) {
    State after = current.get(jobId);
    JobSnapshot row = before.job();
    String write = jobId + "/" + epoch + "/" + kind;
    if (reply.startsWith("ok")) {
      boolean repeat = reply.contains("repeat=true");
      boolean owned =
          row != null
              && row.epoch() == epoch
              && owner.equals(row.owner())
              && (row.state() == JobState.RUNNING || repeat);
      // a fail or release that gave its job back, retried after the job was claimed again, is
      // told it landed, and changes nothing
      boolean landedBefore = repeat && gaveBack.contains(write) && Objects.equals(row, after.job());
      if (!owned && !landedBefore) {
        violate(
            Invariant.COMMITS_ONLY_BY_CURRENT_OWNER,
            step,
            "job " + jobId + " accepted",
            owner
                + " at epoch "
                + epoch
                + " got '"
                + reply
                + "' on job "
                + jobId
                + ", which was "
                + describe(row));
      }
      if (kind.equals("fail") || kind.equals("release")) {
        gaveBack.add(write);
      }
    } else if (!Objects.equals(row, after.job())) {
      violate(
          Invariant.COMMITS_ONLY_BY_CURRENT_OWNER,
          step,
          "job " + jobId + " refused",
          "a refused commit changed job "
              + jobId
              + ": before "
              + describe(row)
              + ", after "
              + describe(after.job()));
    }
  }

  /** Reads every job after an action and checks the invariants that hold at every moment. */
  void observe(int step) {
    for (long id : jobs) {
      State before = current.get(id);
      State now = reader.apply(id);
      current.put(id, now);
      if (now.epoch() < before.epoch()) {
        violate(
            Invariant.EPOCHS_ONLY_GO_UP,
            step,
            "job " + id + " down",
            "job " + id + "'s epoch went from " + before.epoch() + " to " + now.epoch());
      }
      long delivered = highestDelivery.getOrDefault(id, 0L);
      if (now.receiverEpoch() != delivered || now.receiverEpoch() < before.receiverEpoch()) {
        violate(
            Invariant.RECEIVER_KEEPS_NEWEST,
            step,
            "job " + id,
            "the receiver holds epoch "
                + now.receiverEpoch()
                + " ("
                + (now.receipt() == null ? "nothing" : now.receipt().payload())
                + ") for job "
                + id
                + ", but the highest epoch that delivered is "
                + delivered
                + (now.receiverEpoch() < before.receiverEpoch()
                    ? " and it held " + before.receiverEpoch() + " before"
                    : ""));
      }
    }
  }

  /** The checks at the end of an interleaving; claims every job that should be claimable again. */
  void finish(FencedQueue queue, String queueName) {
    observe(0);
    Instant checkedAt = Instant.now();
    for (long id : jobs) {
      State state = current.get(id);
      if (state.job() != null && state.job().state() == JobState.COMPLETED) {
        checkResultMatchesReceipt(id, state);
      }
    }
    List<Long> claimable = new ArrayList<>();
    List<Long> spent = new ArrayList<>();
    for (long id : jobs) {
      JobSnapshot row = current.get(id).job();
      boolean expired =
          row != null
              && row.state() == JobState.RUNNING
              && row.leaseExpiresAt() != null
              && row.leaseExpiresAt().isBefore(checkedAt.minus(Duration.ofMillis(50)));
      if (row == null) {
        violate(Invariant.NO_JOB_LOST, 0, "job " + id, "job " + id + " is gone");
      } else if (expired && row.attempts() >= row.maxAttempts()) {
        // its last lease ran out: the next claim ends it failed instead of returning it
        spent.add(id);
      } else if (row.state() == JobState.PENDING || expired) {
        claimable.add(id);
      } else if (row.state() == JobState.RUNNING && row.leaseExpiresAt() == null) {
        violate(
            Invariant.NO_JOB_LOST, 0, "job " + id, "job " + id + " is running with no lease end");
      }
    }
    List<Long> claimed =
        queue.claimBatch(queueName, "checker", Duration.ofMinutes(1), 100).stream()
            .map(Job::id)
            .toList();
    for (long id : claimable) {
      if (!claimed.contains(id)) {
        violate(
            Invariant.NO_JOB_LOST,
            0,
            "job " + id + " claim",
            "job "
                + id
                + " should be claimable again ("
                + describe(current.get(id).job())
                + ")"
                + " but a claim did not return it");
      }
    }
    for (long id : spent) {
      JobSnapshot row = queue.find(id).orElse(null);
      if (claimed.contains(id) || row == null || row.state() != JobState.FAILED) {
        violate(
            Invariant.NO_JOB_LOST,
            0,
            "job " + id + " spent",
            "job "
                + id
                + " ran out of its last lease ("
                + describe(current.get(id).job())
                + ") and should end failed at the next claim, but it is "
                + (claimed.contains(id) ? "claimed again" : row == null ? "gone" : describe(row)));
      }
    }
    for (long id : claimed) {
      JobSnapshot row = current.get(id).job();
      if (row != null && (row.state() == JobState.COMPLETED || row.state() == JobState.FAILED)) {
        violate(
            Invariant.NO_JOB_LOST,
            0,
            "job " + id + " terminal",
            "finished job " + id + " (" + describe(row) + ") was claimed again");
      }
    }
  }

  private void checkResultMatchesReceipt(long id, State state) {
    JobSnapshot row = Objects.requireNonNull(state.job());
    String result = row.result() == null ? "" : row.result();
    String payload = state.receipt() == null ? "" : state.receipt().payload();
    String resultClaim = find(EPOCH, result) + "/" + find(WORKER, result);
    String receiptClaim = find(EPOCH, payload) + "/" + find(WORKER, payload);
    if (!resultClaim.equals(receiptClaim)
        || !find(EPOCH, result).equals(Long.toString(row.epoch()))) {
      violate(
          Invariant.RESULT_MATCHES_RECEIPT,
          0,
          "job " + id,
          "job "
              + id
              + " completed at epoch "
              + row.epoch()
              + " with result "
              + result
              + ", but the receiver holds "
              + (payload.isEmpty() ? "nothing" : payload));
    }
  }

  private static String find(Pattern pattern, String json) {
    Matcher m = pattern.matcher(json);
    return m.find() ? m.group(1) : "?";
  }

  private void violate(Invariant invariant, int step, String key, String detail) {
    if (reported.add(invariant + " " + key)) {
      violations.add(new Execution.Violation(invariant, step, detail));
    }
  }

  private static String describe(@Nullable JobSnapshot row) {
    if (row == null) {
      return "missing";
    }
    return row.state().dbName()
        + " at epoch "
        + row.epoch()
        + (row.owner() == null ? "" : " owned by " + row.owner())
        + (row.result() == null ? "" : " with result " + row.result());
  }
}
