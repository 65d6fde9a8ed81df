package dev.fencing.ha;

import dev.fencing.testkit.fault.CheckList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SequencedMap;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The checks of {@link FailoverFaultTest}, judged per job and per token (a job and one of its
 * epochs) on the job table of the promoted primary, the receiver's table in the other database, and
 * every claim and outcome the workers printed. Each check keeps its violations; a check passes when
 * it has none.
 *
 * <p>An epoch's generation is its high 32 bits (docs/HA.md). A completion a worker was told of
 * whose job ended at a later epoch was lost if the later epoch is of a later generation: the commit
 * landed on a primary whose last commits the promotion lost, and the job ran again. That is allowed
 * with asynchronous replication and counted; with synchronous replication it is a lost job. In the
 * same generation it is a stale accept: the store accepted a commit from a claim that had been
 * superseded.
 */
final class FailoverChecks {

  /**
   * The job's row on the primary after the run; {@code result*} null without a result.
   *
   * @param result the result as {@code jsonb} text, so equal to an equal receipt's payload
   */
  record Row(
      long id,
      String status,
      long epoch,
      String owner,
      Long resultEpoch,
      String resultOwner,
      String result) {}

  /** The receiver's newest delivery for a job; its payload as {@code jsonb} text. */
  record Receipt(long epoch, String payload) {}

  /** A handler started on a claim, as a worker printed it. */
  record Claim(String worker, long job, long epoch, long millis) {}

  /** An outcome a worker's runtime reported. */
  record Outcome(String worker, String type, long job, long epoch, String detail) {}

  static final String NOT_LOST = "every job enqueued is on the primary and completed";
  static final String FINAL_RESULT = "the result names the job's final epoch and owner";
  static final String RECEIVER = "the receiver holds the final epoch and the result";
  static final String ONE_TOKEN = "one token, one owner: no (job, epoch) claimed twice";
  static final String NO_STALE =
      "no stale accept: a completion below the final epoch is of an older generation";
  static final String NO_LOST_COMPLETION =
      "no completion lost (synchronous mode: a completion told is never rerun)";
  static final String ONE_OUTCOME = "each token reported at most once";
  static final String NO_FALSE_REFUSAL =
      "the claim whose commit landed was not told it was fenced off, failed or released";
  static final String STOPPED = "every worker stopped in order when told to";

  private static final int EXAMPLES = 10;

  private final CheckList checks;
  private final Map<String, Integer> counts = new LinkedHashMap<>();

  /**
   * Judges a run.
   *
   * @param synchronous whether the cluster and the library ran in synchronous mode
   * @param enqueued the ids of every job the test enqueued (each wave replicated before a fault)
   * @param receipts the receiver's newest delivery per job id
   * @param stopFailures one line per worker that did not stop in order
   */
  FailoverChecks(
      boolean synchronous,
      List<Long> enqueued,
      Map<Long, Row> rows,
      Map<Long, Receipt> receipts,
      List<Claim> claims,
      List<Outcome> outcomes,
      List<String> stopFailures) {
    checks =
        new CheckList(
            List.of(
                NOT_LOST,
                FINAL_RESULT,
                RECEIVER,
                ONE_TOKEN,
                NO_STALE,
                NO_LOST_COMPLETION,
                ONE_OUTCOME,
                NO_FALSE_REFUSAL,
                STOPPED));
    Set<Long> jobs = new HashSet<>(enqueued);
    for (long id : enqueued) {
      checkRow(id, rows.get(id), receipts.get(id));
    }
    Set<String> twice = checkTokens(claims);
    checkOutcomes(synchronous, rows, outcomes, twice);
    stopFailures.forEach(f -> add(STOPPED, f));
    counts.put("jobs", enqueued.size());
    counts.put("claims (handlers started)", claims.size());
    counts.put("tokens claimed twice", twice.size());
    counts.put(
        "tokens claimed by two processes",
        (int)
            claims.stream()
                .collect(
                    Collectors.groupingBy(
                        c -> c.job() + "@" + c.epoch(),
                        Collectors.mapping(Claim::worker, Collectors.toSet())))
                .values()
                .stream()
                .filter(workers -> workers.size() > 1)
                .count());
    counts.put(
        "jobs run in a later generation",
        (int)
            rows.values().stream()
                .filter(r -> generation(r.epoch()) > 0 && jobs.contains(r.id()))
                .count());
  }

  static long generation(long epoch) {
    return epoch >>> 32;
  }

  private void checkRow(long id, Row row, Receipt receipt) {
    if (row == null) {
      add(NOT_LOST, "job " + id + " is not on the primary");
      return;
    }
    String at = "job " + id + " (" + row.status() + ", epoch " + row.epoch() + "): ";
    if (!row.status().equals("completed")) {
      add(NOT_LOST, at + "not completed");
      return;
    }
    if (!Objects.equals(row.resultEpoch(), row.epoch())
        || !Objects.equals(row.resultOwner(), row.owner())) {
      add(
          FINAL_RESULT,
          at
              + "result of epoch "
              + row.resultEpoch()
              + " by "
              + row.resultOwner()
              + ", row's owner "
              + row.owner());
    }
    boolean matches = receipt != null && Objects.equals(receipt.payload(), row.result());
    if (receipt == null || receipt.epoch() != row.epoch() || !matches) {
      add(
          RECEIVER,
          at
              + (receipt == null
                  ? "no receipt"
                  : "receipt at epoch "
                      + receipt.epoch()
                      + (matches ? "" : ", payload not the result")));
    }
  }

  /** Returns the tokens claimed more than once, as {@code job@epoch}. */
  private Set<String> checkTokens(List<Claim> claims) {
    Map<String, Claim> first = new HashMap<>();
    Set<String> twice = new HashSet<>();
    for (Claim c : claims) {
      String token = c.job() + "@" + c.epoch();
      Claim earlier = first.putIfAbsent(token, c);
      if (earlier != null) {
        twice.add(token);
        add(
            ONE_TOKEN,
            "job "
                + c.job()
                + " epoch "
                + c.epoch()
                + " (generation "
                + generation(c.epoch())
                + "): claimed by "
                + earlier.worker()
                + " at "
                + earlier.millis()
                + " and by "
                + c.worker()
                + " at "
                + c.millis());
      }
    }
    return twice;
  }

  private void checkOutcomes(
      boolean synchronous, Map<Long, Row> rows, List<Outcome> outcomes, Set<String> twice) {
    Map<String, Outcome> seen = new HashMap<>();
    Set<Long> rerun = new HashSet<>();
    for (Outcome o : outcomes) {
      counts.merge("outcome " + o.type(), 1, Integer::sum);
      String token = o.job() + "@" + o.epoch();
      String where = o.worker() + " " + o.type() + " job " + token;
      Outcome earlier = seen.putIfAbsent(token, o);
      if (earlier != null) {
        add(ONE_OUTCOME, where + ", already " + earlier.worker() + " " + earlier.type());
      }
      Row row = rows.get(o.job());
      if (row == null) {
        continue; // NOT_LOST says so
      }
      boolean landed = row.status().equals("completed") && row.epoch() == o.epoch();
      if (o.type().equals("Completed")) {
        if (twice.contains(token)) {
          add(NO_STALE, where + ": told accepted while another claim held the same token");
        } else if (!landed) {
          if (generation(o.epoch()) < generation(row.epoch())) {
            rerun.add(o.job());
            if (synchronous) {
              add(
                  NO_LOST_COMPLETION,
                  where + ", lost: the job ran again and ended at epoch " + row.epoch());
            }
          } else {
            add(NO_STALE, where + ", but the job is " + row.status() + " at epoch " + row.epoch());
          }
        }
      } else if (landed && !o.type().equals("Abandoned")) {
        add(NO_FALSE_REFUSAL, where + " " + o.detail());
      }
    }
    counts.put("completions lost and rerun", rerun.size());
  }

  private void add(String check, String violation) {
    checks.add(check, violation);
  }

  /** Every check by name, with its violations. */
  SequencedMap<String, List<String>> violations() {
    return checks.violations();
  }

  /** What was counted: jobs, claims, tokens held twice, lost completions, outcomes by type. */
  Map<String, Integer> counts() {
    return counts;
  }

  /** One line per check: passed, or failed with its first violations. */
  String summary() {
    return checks.summary(EXAMPLES);
  }
}
