package dev.fencing.cli.internal;

import dev.fencing.Enqueued;
import dev.fencing.FencedQueue;
import dev.fencing.JobOptions;
import dev.fencing.KeyedJob;
import dev.fencing.internal.Validate;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code fencing enqueue <queue> <payload> [--delay D | --at T] [--priority N] [--group G] [--key
 * K]}: enqueue one job by hand, with the options a producer has.
 */
@Command(
    name = "enqueue",
    mixinStandardHelpOptions = true,
    description = {
      "Enqueue one job (a JSON payload), now or later, with a priority or a group.",
      "With --key, enqueueing again is safe: a key the queue holds keeps its job (exit 0)."
    })
public final class EnqueueCommand extends DatabaseCommand {

  @Parameters(index = "0", paramLabel = "<queue>", description = "the queue's name")
  String queue = "";

  @Parameters(index = "1", paramLabel = "<payload>", description = "the job's payload, JSON")
  String payload = "";

  @ArgGroup(exclusive = true)
  @Nullable When when;

  /** When the job may run: after a delay or at an instant, on the database's clock. */
  static final class When {
    @Option(names = "--delay", paramLabel = "DURATION", description = "run after this long")
    @Nullable Duration delay;

    @Option(
        names = "--at",
        paramLabel = "INSTANT",
        description = "run at this instant (ISO-8601, e.g. 2027-01-01T06:00:00Z)")
    @Nullable Instant at;
  }

  @Option(names = "--priority", paramLabel = "N", description = "-10 to 10, higher first")
  int priority;

  @Option(names = "--group", paramLabel = "G", description = "the job's group, for group limits")
  @Nullable String group;

  @Option(names = "--key", paramLabel = "K", description = "an idempotency key")
  @Nullable String key;

  @Override
  public void run() {
    Validate.identifier("queue", queue);
    JobOptions options = JobOptions.ofPriority(priority);
    if (when != null && when.delay != null) {
      options = options.withDelay(when.delay);
    }
    if (when != null && when.at != null) {
      options = options.withRunAt(when.at);
    }
    if (group != null) {
      options = options.withGroup(group);
    }
    JobOptions chosen = options;
    FencedQueue fenced = database.fencing().queue();
    if (key == null) {
      long id = DatabaseOptions.reported(() -> fenced.enqueue(queue, payload, chosen));
      out().println("enqueued job " + id + " on queue " + queue + described(chosen));
      return;
    }
    KeyedJob job = new KeyedJob(key, payload, chosen);
    Enqueued enqueued =
        DatabaseOptions.reported(() -> fenced.enqueueKeyed(queue, List.of(job))).get(0);
    out()
        .println(
            enqueued.created()
                ? "enqueued job " + enqueued.id() + " on queue " + queue + described(chosen)
                : "key " + Validate.quote(key) + " already names job " + enqueued.id());
  }

  private static String described(JobOptions options) {
    return options.isDefault() ? "" : " (" + options + ")";
  }
}
