package dev.fencing.cli.internal;

import dev.fencing.postgres.admin.PostgresAdmin;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code fencing fail <id> --reason ...}: end a pending or running job failed. */
@Command(
    name = "fail",
    mixinStandardHelpOptions = true,
    description = {
      "End a pending or running job failed, with a reason kept as its last error.",
      "A running job's holder is refused at its next commit or renewal."
    })
public final class FailCommand extends JobIdCommand {

  @Option(names = "--reason", required = true, description = "why, kept as the job's last error")
  String reason = "";

  @Override
  public void run() {
    PostgresAdmin admin = database.admin();
    Changes.report(admin.fail(id, reason), "failed job " + id, admin.schema(), out());
  }
}
