package dev.fencing.cli.internal;

import dev.fencing.postgres.PostgresAdmin;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code fencing fail <id> --reason ...}: end a pending or running job failed. */
@Command(
    name = "fail",
    mixinStandardHelpOptions = true,
    description = {
      "End a pending or running job failed, with a reason kept as its last error.",
      "A running job's holder is refused at its next commit or renewal."
    })
public final class FailCommand implements Runnable {

  @Mixin DatabaseOptions database;

  @Parameters(paramLabel = "<id>", description = "the job's id")
  long id;

  @Option(names = "--reason", required = true, description = "why, kept as the job's last error")
  String reason = "";

  @Spec picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    PostgresAdmin admin = database.admin();
    Changes.report(
        admin.fail(id, reason), "failed job " + id, admin.schema(), spec.commandLine().getOut());
  }
}
