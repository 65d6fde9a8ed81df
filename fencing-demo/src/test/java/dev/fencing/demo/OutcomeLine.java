package dev.fencing.demo;

import dev.fencing.FencedOutcome;
import dev.fencing.runtime.WorkOutcome;
import java.util.Optional;

/**
 * One line of a chaos worker's outcome log: what the runtime reported for one claim. Tab-separated:
 * type, job id, epoch, attempt, stage, refusal, acceptance (delivery/commit), detail.
 *
 * @param type {@code Completed}, {@code FencedOff}, {@code Failed}, {@code Released} or {@code
 *     Abandoned}
 * @param stage the fenced-off stage, or {@code -}
 * @param refusal the refusal's kind (with the winning epoch when superseded), or {@code -}
 * @param acceptance for a completion, {@code new} or {@code repeat} for the delivery and the
 *     commit, e.g. {@code new/repeat}; else {@code -}
 * @param detail the reason or error, without tabs or line breaks
 */
record OutcomeLine(
    String type,
    long job,
    long epoch,
    int attempt,
    String stage,
    String refusal,
    String acceptance,
    String detail) {

  private static final int FIELDS = 8;

  static OutcomeLine of(WorkOutcome outcome) {
    long job = outcome.job().id();
    long epoch = outcome.job().epoch().value();
    int attempt = outcome.job().attempt();
    return switch (outcome) {
      case WorkOutcome.Completed c ->
          new OutcomeLine(
              "Completed",
              job,
              epoch,
              attempt,
              "-",
              "-",
              (c.delivery() == null ? "none" : ChaosWorkerMain.acceptance(c.delivery()))
                  + "/"
                  + ChaosWorkerMain.acceptance(c.commit()),
              "");
      case WorkOutcome.FencedOff f ->
          new OutcomeLine(
              "FencedOff", job, epoch, attempt, f.stage().name(), refusal(f.refusal()), "-", "");
      case WorkOutcome.Failed f ->
          new OutcomeLine(
              "Failed", job, epoch, attempt, "-", "-", "-", clean(f.error().toString()));
      case WorkOutcome.Released r ->
          new OutcomeLine("Released", job, epoch, attempt, "-", "-", "-", clean(r.reason()));
      case WorkOutcome.Abandoned a ->
          new OutcomeLine(
              "Abandoned",
              job,
              epoch,
              attempt,
              "-",
              "-",
              "-",
              clean(a.reason() + (a.error() == null ? "" : ": " + a.error())));
    };
  }

  /** Parses a line; empty for a comment, a blank line, or a line cut short by a kill. */
  static Optional<OutcomeLine> parse(String line) {
    if (line.isBlank() || line.startsWith("#")) {
      return Optional.empty();
    }
    String[] f = line.split("\t", -1);
    if (f.length != FIELDS) {
      return Optional.empty();
    }
    try {
      return Optional.of(
          new OutcomeLine(
              f[0],
              Long.parseLong(f[1]),
              Long.parseLong(f[2]),
              Integer.parseInt(f[3]),
              f[4],
              f[5],
              f[6],
              f[7]));
    } catch (NumberFormatException e) {
      return Optional.empty();
    }
  }

  String format() {
    return String.join(
        "\t",
        type,
        Long.toString(job),
        Long.toString(epoch),
        Integer.toString(attempt),
        stage,
        refusal,
        acceptance,
        detail);
  }

  boolean completed() {
    return type.equals("Completed");
  }

  private static String refusal(FencedOutcome.Refused refused) {
    return switch (refused) {
      case FencedOutcome.Superseded s -> "Superseded:" + s.current().value();
      case FencedOutcome.LeaseExpired e -> "LeaseExpired";
      case FencedOutcome.NotOwner n -> "NotOwner";
      case FencedOutcome.AlreadyFinished a -> "AlreadyFinished:" + a.state();
      case FencedOutcome.Removed r -> "Removed";
      case FencedOutcome.Cancelled c -> "Cancelled";
    };
  }

  private static String clean(String text) {
    String flat = text.replace('\t', ' ').replace('\n', ' ').replace('\r', ' ');
    return flat.length() > 300 ? flat.substring(0, 300) : flat;
  }
}
