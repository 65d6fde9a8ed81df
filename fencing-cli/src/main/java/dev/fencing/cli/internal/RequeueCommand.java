package dev.fencing.cli.internal;

import dev.fencing.postgres.admin.PostgresAdmin;
import picocli.CommandLine.Command;

/**
 * {@code fencing requeue <id>}: a failed job back to pending. There is no {@code --force} for a
 * completed job: its result and outbox messages already count, so running it again would repeat its
 * effects; enqueue a new job for that.
 */
@Command(
    name = "requeue",
    mixinStandardHelpOptions = true,
    description = {
      "Put a failed job back to pending, claimable now, attempts counted from zero.",
      "Its epoch is kept: the next claim takes a larger one. Running and completed jobs are"
          + " refused (exit 1)."
    })
public final class RequeueCommand extends JobIdCommand {

  @Override
  public void run() {
    PostgresAdmin admin = database.admin();
    Changes.report(
        admin.requeue(id),
        "requeued job " + id + ": pending, claimable now",
        admin.schema(),
        out());
  }
}
