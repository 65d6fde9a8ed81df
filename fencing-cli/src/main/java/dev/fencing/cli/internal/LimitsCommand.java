package dev.fencing.cli.internal;

import dev.fencing.FencedQueue;
import dev.fencing.QueueLimits;
import dev.fencing.internal.Validate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code fencing limits <queue> [--max-running N] [--rate N/W] [--group-max-running N]
 * [--group-rate N/W] [--fifo] | [--clear]}: print a queue's limits, or replace them for every
 * process that claims from it.
 */
@Command(
    name = "limits",
    mixinStandardHelpOptions = true,
    description = {
      "Print the limits of a queue, or replace them for every process that claims from it"
          + " (the options given are the queue's new limits; one left out is removed).",
      "The next claim obeys a change; a lowered limit ends no lease: no claim succeeds until"
          + " enough running jobs end or their leases run out.",
      "A rate is written starts/window: 100/1s, 10/1m, 5/PT0.5S."
    })
public final class LimitsCommand extends DatabaseCommand {

  @Parameters(paramLabel = "<queue>", description = "the queue's name")
  String queue = "";

  @ArgGroup(exclusive = true)
  @Nullable Change change;

  /** The new limits, or none. */
  static final class Change {
    @ArgGroup(exclusive = false)
    @Nullable Wanted wanted;

    @Option(names = "--clear", description = "remove the queue's limits")
    boolean clear;
  }

  /** Limits to set; at least one. */
  static final class Wanted {
    @Option(
        names = "--max-running",
        paramLabel = "N",
        description = "at most N jobs of the queue running under valid leases (1 to 1,000,000)")
    @Nullable Integer maxRunning;

    @Option(
        names = "--rate",
        paramLabel = "N/W",
        description = "at most N jobs of the queue handed out per window W")
    @Nullable String rate;

    @Option(
        names = "--group-max-running",
        paramLabel = "N",
        description = "at most N jobs of each group under way (1 to 1,000,000)")
    @Nullable Integer groupMaxRunning;

    @Option(
        names = "--group-rate",
        paramLabel = "N/W",
        description = "at most N jobs of each group started per window W")
    @Nullable String groupRate;

    @Option(names = "--fifo", description = "each group's jobs start in the order enqueued")
    boolean fifo;

    @Option(
        names = "--aging",
        paramLabel = "DURATION",
        description =
            "priority aging: a job of priority p ranks as if ready p times DURATION earlier"
                + " (1ms to 1d, e.g. 30s); without it the order is strict")
    @Nullable Duration aging;
  }

  @Override
  public void run() {
    Validate.identifier("queue", queue);
    QueueLimits wanted = wanted();
    FencedQueue fenced = database.fencing().queue();
    String schema = " (schema " + database.schema + ")";
    if (wanted == null) {
      QueueLimits limits = DatabaseOptions.reported(() -> fenced.limits(queue));
      out().println("queue " + queue + schema + ": " + described(limits));
      return;
    }
    QueueLimits before = DatabaseOptions.reported(() -> fenced.setLimits(queue, wanted));
    out()
        .println(
            "queue "
                + queue
                + schema
                + ": "
                + described(wanted)
                + " (was: "
                + described(before)
                + ")");
  }

  /** The limits to set, or null to print them; checked before the database is reached. */
  private @Nullable QueueLimits wanted() {
    if (change == null) {
      return null;
    }
    Wanted w = change.wanted;
    if (change.clear || w == null) {
      return QueueLimits.NONE;
    }
    QueueLimits limits = QueueLimits.NONE;
    if (w.maxRunning != null) {
      limits = limits.withMaxRunning(w.maxRunning);
    }
    if (w.rate != null) {
      QueueLimits.Rate rate = QueueLimits.Rate.parse(w.rate);
      limits = limits.withRate(rate.starts(), rate.per());
    }
    if (w.groupMaxRunning != null) {
      limits = limits.withMaxRunningPerGroup(w.groupMaxRunning);
    }
    if (w.groupRate != null) {
      QueueLimits.Rate rate = QueueLimits.Rate.parse(w.groupRate);
      limits = limits.withRatePerGroup(rate.starts(), rate.per());
    }
    if (w.aging != null) {
      limits = limits.withPriorityAging(w.aging);
    }
    return w.fifo ? limits.withFifoPerGroup() : limits;
  }

  /** The limits in words: {@code at most 2 running, 100 per 1s; per group: 1 running, FIFO}. */
  static String described(QueueLimits limits) {
    if (limits.isNone()) {
      return "no limits";
    }
    List<String> queueWide = new ArrayList<>();
    limits.runningLimit().ifPresent(n -> queueWide.add("at most " + n + " running"));
    limits.rate().ifPresent(r -> queueWide.add(rate(r)));
    List<String> perGroup = new ArrayList<>();
    limits.runningLimitPerGroup().ifPresent(n -> perGroup.add("at most " + n + " under way"));
    limits.ratePerGroup().ifPresent(r -> perGroup.add(rate(r)));
    if (limits.fifoPerGroup()) {
      perGroup.add("FIFO");
    }
    limits
        .priorityAging()
        .ifPresent(
            a -> {
              queueWide.add("priority aging " + Durations.show(a));
            });
    String text = String.join(", ", queueWide);
    if (!perGroup.isEmpty()) {
      text += (text.isEmpty() ? "" : "; ") + "per group: " + String.join(", ", perGroup);
    }
    return text;
  }

  private static String rate(QueueLimits.Rate rate) {
    String window = rate.toString();
    return rate.starts() + " started per " + window.substring(window.indexOf('/') + 1);
  }
}
