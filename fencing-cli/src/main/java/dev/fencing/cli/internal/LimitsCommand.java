package dev.fencing.cli.internal;

import dev.fencing.FencedQueue;
import dev.fencing.QueueLimits;
import dev.fencing.internal.Validate;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code fencing limits <queue> [--max-running N | --clear]}: print a queue's limits, or set them
 * for every process that claims from it.
 */
@Command(
    name = "limits",
    mixinStandardHelpOptions = true,
    description = {
      "Print the limits of a queue, or set them for every process that claims from it.",
      "The next claim obeys a change; a lowered limit ends no lease: no claim succeeds until"
          + " enough running jobs end or their leases run out."
    })
public final class LimitsCommand extends DatabaseCommand {

  @Parameters(paramLabel = "<queue>", description = "the queue's name")
  String queue = "";

  @ArgGroup(exclusive = true)
  @Nullable Change change;

  /** At most one change: a new running limit, or none. */
  static final class Change {
    @Option(
        names = "--max-running",
        paramLabel = "N",
        description = "at most N jobs of the queue running under valid leases (1 to 1,000,000)")
    @Nullable Integer maxRunning;

    @Option(names = "--clear", description = "remove the queue's limits")
    boolean clear;
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
    return change.clear ? QueueLimits.NONE : QueueLimits.maxRunning(change.maxRunning);
  }

  private static String described(QueueLimits limits) {
    return limits.runningLimit().isPresent()
        ? "at most " + limits.runningLimit().getAsInt() + " running"
        : "no limits";
  }
}
