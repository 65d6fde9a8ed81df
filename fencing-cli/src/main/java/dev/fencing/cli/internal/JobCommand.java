package dev.fencing.cli.internal;

import dev.fencing.cli.ExitCode;
import dev.fencing.postgres.admin.JobDetails;
import dev.fencing.postgres.admin.PostgresAdmin;
import picocli.CommandLine.Command;

/**
 * {@code fencing job <id>}: one job with its epochs, owners, last error, outbox messages and
 * recorded refused writes.
 */
@Command(
    name = "job",
    mixinStandardHelpOptions = true,
    description =
        "Show a job: its row, priority, group and key, who held which epoch, its outbox messages"
            + " and refused writes.")
public final class JobCommand extends JobIdCommand {

  @Override
  public void run() {
    PostgresAdmin admin = database.admin();
    JobDetails job = admin.job(id).orElseThrow(() -> unknown(id, admin.schema()));
    JobPrinter.print(job, admin.options(id).orElse(null), admin.schema(), out());
    admin.history(id).ifPresent(h -> JobPrinter.refusals(h.refusals(), out()));
  }

  static CliException unknown(long id, String schema) {
    return new CliException(ExitCode.UNKNOWN_JOB, "no job " + id + " in schema " + schema);
  }
}
