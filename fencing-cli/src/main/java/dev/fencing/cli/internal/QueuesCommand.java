package dev.fencing.cli.internal;

import dev.fencing.postgres.admin.PostgresAdmin;
import dev.fencing.postgres.admin.QueueSummary;
import java.io.PrintWriter;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code fencing queues}: every queue with its jobs by state. */
@Command(
    name = "queues",
    mixinStandardHelpOptions = true,
    description = {
      "List queues with pending, running or failed jobs, with their counts by state.",
      "Completed jobs are counted only with --completed: that reads every completed row."
    })
public final class QueuesCommand extends DatabaseCommand {

  @Option(names = "--completed", description = "also count completed jobs (scans the table)")
  boolean completed;

  @Override
  public void run() {
    PostgresAdmin admin = database.admin();
    List<QueueSummary> queues = admin.queues(completed);
    PrintWriter out = out();
    if (queues.isEmpty()) {
      out.println("no queues with jobs in schema " + admin.schema());
      return;
    }
    TextTable table =
        completed
            ? new TextTable("QUEUE", "PENDING", "RUNNING", "FAILED", "COMPLETED")
                .rightAligned(1, 2, 3, 4)
            : new TextTable("QUEUE", "PENDING", "RUNNING", "FAILED").rightAligned(1, 2, 3);
    for (QueueSummary q : queues) {
      if (completed) {
        table.row(q.queue(), q.pending(), q.running(), q.failed(), q.completed());
      } else {
        table.row(q.queue(), q.pending(), q.running(), q.failed());
      }
    }
    table.print(out);
  }
}
