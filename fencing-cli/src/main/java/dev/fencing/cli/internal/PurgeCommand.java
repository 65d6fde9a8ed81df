package dev.fencing.cli.internal;

import dev.fencing.postgres.admin.PostgresAdmin;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code fencing purge --older-than 7d [--queue q]}: delete old finished jobs. */
@Command(
    name = "purge",
    mixinStandardHelpOptions = true,
    description = {
      "Delete completed and failed jobs finished longer ago than --older-than (database clock),",
      "in batches. Jobs with undelivered outbox messages are kept."
    })
public final class PurgeCommand extends DatabaseCommand {

  @Option(
      names = "--older-than",
      required = true,
      description = "age such as 7d, 12h, 30m or P7D; 1 min to 3650 days")
  Duration olderThan = Duration.ZERO;

  @Option(names = "--queue", description = "only this queue (default: every queue)")
  @Nullable String queue;

  @Override
  public void run() {
    PostgresAdmin admin = database.admin();
    long deleted = admin.purge(olderThan, queue);
    spec.commandLine()
        .getOut()
        .println(
            "purged "
                + deleted
                + (deleted == 1 ? " job" : " jobs")
                + " finished more than "
                + Durations.show(olderThan)
                + " ago"
                + (queue == null ? "" : " from queue " + queue)
                + " in schema "
                + admin.schema());
  }
}
