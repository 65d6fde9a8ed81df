package dev.fencing.cli.internal;

import dev.fencing.CancelResult;
import dev.fencing.cli.ExitCode;
import dev.fencing.postgres.admin.PostgresAdmin;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code fencing cancel <id> [--reason ...]}: cancel a pending or running job. Prints the fence
 * epoch: the epoch above every lease the job was handed out under, to which its receivers may be
 * raised.
 */
@Command(
    name = "cancel",
    mixinStandardHelpOptions = true,
    description = {
      "Cancel a pending or running job: it ends failed (\"cancelled: <reason>\") and is never"
          + " handed out again.",
      "A running job's holder is refused (Cancelled) at its next commit or renewal; the runtime"
          + " interrupts its handler at its next heartbeat.",
      "Cancelling again is safe (exit 0, \"already cancelled\"); a job that already ended is"
          + " left as it is (exit 1)."
    })
public final class CancelCommand extends JobIdCommand {

  @Option(names = "--reason", description = "why, kept in the job's last error")
  @Nullable String reason;

  @Override
  public void run() {
    PostgresAdmin admin = database.admin();
    switch (DatabaseOptions.reported(() -> admin.cancel(id, reason))) {
      case CancelResult.Cancelled c ->
          out()
              .println(
                  (c.repeat() ? "job " + id + " was already cancelled" : "cancelled job " + id)
                      + " (it was "
                      + c.was().dbName()
                      + "); fence epoch "
                      + c.fence().value());
      case CancelResult.AlreadyEnded e ->
          throw new CliException(
              ExitCode.REFUSED,
              "job " + id + " already ended " + e.state().dbName() + "; nothing was changed");
      case CancelResult.NotFound n ->
          throw new CliException(
              ExitCode.UNKNOWN_JOB, "no job " + id + " in schema " + admin.schema());
    }
  }
}
