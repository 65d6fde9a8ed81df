package dev.fencing.demo;

import dev.fencing.testkit.fault.CheckList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SequencedMap;

/**
 * The checks of {@link RuntimeFaultTest}, judged on the job table, the receiver's table and every
 * outcome the workers logged. Each check keeps its violations; a check passes when it has none.
 */
final class ChaosChecks {

  /**
   * A job's row with its result's fields and the receiver's receipt, as read after the run.
   *
   * @param resultJob the result's {@code job}, or null without a result
   * @param receiptEpoch the receiver's newest epoch for the job, or null if none
   * @param receiptMatches whether the receipt's payload equals the result (as {@code jsonb}), or
   *     null if either is missing
   */
  record JobRow(
      long id,
      String status,
      long epoch,
      String owner,
      int attempts,
      String lastError,
      Long resultJob,
      Long resultEpoch,
      String resultOwner,
      Long receiptEpoch,
      Boolean receiptMatches) {}

  /** How a worker incarnation ended when told to stop (or earlier). */
  record Exit(String incarnation, boolean toldToStop, Integer code, long millis) {}

  static final String ENDED = "every job ended (none starved)";
  static final String NOT_LOST = "no job lost (every job completed)";
  static final String FINAL_RESULT = "the result comes from the job's final epoch";
  static final String RECEIVER = "the receiver holds the final epoch's payload";
  static final String NO_STALE = "no Completed outcome below the final epoch (no stale accept)";
  static final String ONCE = "no job reported Completed twice";
  static final String ONE_OUTCOME = "each claim (job, epoch) reported at most once";
  static final String NO_FALSE_REFUSAL =
      "the claim whose commit landed was not told it was fenced off, failed or released";
  static final String ACCOUNTED = "a worker that stopped cleanly ended every claim it made";
  static final String WELL_FORMED = "every log line is whole (a kill may cut only the last)";
  static final String STOPPED = "every worker exited 0 within the bound after being told to stop";
  static final String NO_CRASH = "no worker died unless the test killed it";

  private static final int EXAMPLES = 10;

  private final CheckList checks;
  private final Map<String, Integer> counts = new HashMap<>();

  /**
   * Judges the run.
   *
   * @param attemptsMayRunOut whether a job may end failed (with its last error) instead of
   *     completed
   */
  ChaosChecks(
      int enqueued,
      List<JobRow> jobs,
      List<ChaosLogs> logs,
      List<Exit> exits,
      List<String> crashes,
      boolean attemptsMayRunOut) {
    checks =
        new CheckList(
            List.of(
                ENDED,
                NOT_LOST,
                FINAL_RESULT,
                RECEIVER,
                NO_STALE,
                ONCE,
                ONE_OUTCOME,
                NO_FALSE_REFUSAL,
                ACCOUNTED,
                WELL_FORMED,
                STOPPED,
                NO_CRASH));
    if (jobs.size() != enqueued) {
      add(NOT_LOST, "the table holds " + jobs.size() + " jobs of the " + enqueued + " enqueued");
    }
    Map<Long, JobRow> byId = new HashMap<>();
    for (JobRow job : jobs) {
      byId.put(job.id(), job);
      checkRow(job, attemptsMayRunOut);
    }
    checkOutcomes(byId, logs);
    for (ChaosLogs log : logs) {
      log.malformed().forEach(line -> add(WELL_FORMED, line));
      if (!log.killed()) {
        checkAccounted(log);
      }
    }
    for (Exit exit : exits) {
      if (exit.toldToStop() && (exit.code() == null || exit.code() != 0)) {
        add(
            STOPPED,
            exit.incarnation()
                + (exit.code() == null
                    ? " still ran " + exit.millis() + " ms after stop (killed)"
                    : " exited " + exit.code()));
      }
    }
    crashes.forEach(c -> add(NO_CRASH, c));
  }

  private void checkRow(JobRow job, boolean attemptsMayRunOut) {
    String at = "job " + job.id() + " (" + job.status() + ", epoch " + job.epoch() + "): ";
    switch (job.status()) {
      case "completed" -> {
        if (!Objects.equals(job.resultJob(), job.id())
            || !Objects.equals(job.resultEpoch(), job.epoch())
            || !Objects.equals(job.resultOwner(), job.owner())) {
          add(
              FINAL_RESULT,
              at
                  + "result names job "
                  + job.resultJob()
                  + ", epoch "
                  + job.resultEpoch()
                  + ", owner "
                  + job.resultOwner()
                  + "; the row's owner is "
                  + job.owner());
        }
        if (!Objects.equals(job.receiptEpoch(), job.epoch())
            || !Boolean.TRUE.equals(job.receiptMatches())) {
          add(
              RECEIVER,
              at
                  + "receipt at epoch "
                  + job.receiptEpoch()
                  + (Boolean.TRUE.equals(job.receiptMatches())
                      ? ""
                      : ", payload differs from the result"));
        }
      }
      case "failed" -> {
        if (!attemptsMayRunOut || job.lastError() == null) {
          add(
              NOT_LOST,
              at + "failed after " + job.attempts() + " attempts; last error " + job.lastError());
        }
      }
      default -> add(ENDED, at + "never ended, " + job.attempts() + " attempts");
    }
  }

  private void checkOutcomes(Map<Long, JobRow> jobs, List<ChaosLogs> logs) {
    Map<String, String> claims = new HashMap<>();
    Map<Long, String> completions = new HashMap<>();
    Map<String, Integer> claimsPerOwner = new HashMap<>();
    for (ChaosLogs log : logs) {
      for (OutcomeLine o : log.outcomes()) {
        count(o.type());
        if (o.type().equals("FencedOff")) {
          count("FencedOff@" + o.stage());
          String refusal = o.refusal();
          count("refusal:" + (refusal.contains(":") ? refusal.split(":")[0] : refusal));
        }
        claimsPerOwner.merge(o.job() + "/" + log.owner(), 1, Integer::sum);
        String where = log.incarnation() + " " + o.type() + " job " + o.job() + "@" + o.epoch();
        String previous = claims.putIfAbsent(o.job() + "@" + o.epoch(), where);
        if (previous != null) {
          add(ONE_OUTCOME, where + ", already " + previous);
        }
        JobRow row = jobs.get(o.job());
        if (row == null) {
          add(NO_STALE, where + ": no such job in the table");
          continue;
        }
        boolean landed = row.status().equals("completed") && row.epoch() == o.epoch();
        if (o.completed()) {
          if (!landed) {
            add(NO_STALE, where + ", but the job is " + row.status() + " at epoch " + row.epoch());
          }
          String first = completions.putIfAbsent(o.job(), where);
          if (first != null) {
            add(ONCE, where + ", and " + first);
          }
        } else if (landed && !o.type().equals("Abandoned")) {
          add(NO_FALSE_REFUSAL, where + " " + o.stage() + " " + o.refusal() + " " + o.detail());
        }
      }
    }
    counts.put("max epoch", (int) jobs.values().stream().mapToLong(JobRow::epoch).max().orElse(0));
    counts.put(
        "jobs claimed more than once",
        (int) jobs.values().stream().filter(j -> j.epoch() > 1).count());
    counts.put("logged completions", completions.size());
    counts.put(
        "jobs claimed twice under one owner",
        (int)
            claimsPerOwner.entrySet().stream()
                .filter(e -> e.getValue() > 1)
                .map(e -> e.getKey().substring(0, e.getKey().indexOf('/')))
                .distinct()
                .count());
  }

  private void checkAccounted(ChaosLogs log) {
    if (log.stats().isEmpty()) {
      add(ACCOUNTED, log.incarnation() + " logged no counters at shutdown");
      return;
    }
    ChaosLogs.Stats s = log.stats().get();
    if (s.claimed() != s.ended() || s.inFlight() != 0 || s.ended() != log.outcomes().size()) {
      add(
          ACCOUNTED,
          log.incarnation()
              + " claimed "
              + s.claimed()
              + ", ended "
              + s.ended()
              + ", in flight "
              + s.inFlight()
              + ", logged "
              + log.outcomes().size());
    }
  }

  private void add(String check, String violation) {
    checks.add(check, violation);
  }

  private void count(String key) {
    counts.merge(key, 1, Integer::sum);
  }

  /** Every check by name, with its violations (all of them). */
  SequencedMap<String, List<String>> violations() {
    return checks.violations();
  }

  /** A count by key: outcome types, {@code FencedOff@STAGE}, {@code refusal:KIND}, max epoch. */
  int count(String key, int absent) {
    return counts.getOrDefault(key, absent);
  }

  /** One line per check: passed, or failed with its first violations. */
  String summary() {
    return checks.summary(EXAMPLES);
  }
}
