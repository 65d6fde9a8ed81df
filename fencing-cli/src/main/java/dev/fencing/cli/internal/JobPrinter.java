package dev.fencing.cli.internal;

import dev.fencing.JobSnapshot;
import dev.fencing.postgres.admin.EpochOwner;
import dev.fencing.postgres.admin.JobDetails;
import dev.fencing.postgres.admin.JobOptionsView;
import dev.fencing.postgres.admin.OutboxEntry;
import dev.fencing.postgres.admin.RefusedWrite;
import java.io.PrintWriter;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import org.jspecify.annotations.Nullable;

/** Prints one job: its row, who held which epoch, its outbox messages, its refused writes. */
final class JobPrinter {

  private JobPrinter() {}

  static void print(JobDetails job, String schema, PrintWriter out) {
    print(job, null, schema, out);
  }

  /** Prints the job with the priority, group and key it was enqueued with, when given. */
  static void print(
      JobDetails details, @Nullable JobOptionsView options, String schema, PrintWriter out) {
    JobSnapshot job = details.job();
    out.println("job " + job.id() + " in queue " + job.queue() + " (schema " + schema + ")");
    TextTable row = new TextTable("FIELD", "VALUE");
    row.row("state", job.state().dbName())
        .row("epoch", job.epoch())
        .row("owner", text(job.owner()))
        .row("attempts", job.attempts() + " of " + job.maxAttempts());
    if (options != null) {
      row.row("priority", options.priority())
          .row("group", text(options.group()))
          .row("key", text(options.key()));
    }
    row.row("expiries", details.expiries())
        .row("last event", details.lastEvent())
        .row("last error", text(job.lastError()))
        .row("settled epochs", details.settledEpochs().isEmpty() ? "-" : details.settledEpochs())
        .row("run at", time(job.runAt()))
        .row("lease expires", time(job.leaseExpiresAt()))
        .row("created", time(details.createdAt()))
        .row("updated", time(details.updatedAt()))
        .row("finished", time(details.finishedAt()))
        .row("payload", job.payload())
        .row("result", text(job.result()));
    row.print(out);
    out.println();
    if (details.history().isEmpty()) {
      out.println("epoch history: none recorded (never claimed since the history was installed)");
    } else {
      out.println("epoch history (last " + details.history().size() + " claims)");
      TextTable history = new TextTable("EPOCH", "OWNER").rightAligned(0);
      for (EpochOwner e : details.history()) {
        history.row(e.epoch(), e.owner());
      }
      history.print(out);
    }
    out.println();
    if (details.messages().isEmpty()) {
      out.println("outbox messages: none");
      return;
    }
    out.println("outbox messages");
    TextTable messages =
        new TextTable("IDX", "EPOCH", "DESTINATION", "KEY", "OUTCOME", "WON EPOCH", "DELIVERED")
            .rightAligned(0, 1, 5);
    for (OutboxEntry m : details.messages()) {
      messages.row(
          m.idx(),
          m.epoch(),
          m.destination(),
          m.receiverKey(),
          m.outcome() == null ? "undelivered" : m.outcome(),
          m.wonEpoch() == null ? "-" : m.wonEpoch(),
          time(m.deliveredAt()));
    }
    messages.print(out);
  }

  /** Prints the job's recorded refused writes, newest first, if it has any. */
  static void refusals(List<RefusedWrite> refusals, PrintWriter out) {
    if (refusals.isEmpty()) {
      return;
    }
    out.println();
    out.println("refused writes (newest first)");
    TextTable table =
        new TextTable("EPOCH", "OWNER", "ACTION", "KIND", "AT", "REASON").rightAligned(0);
    for (RefusedWrite r : refusals) {
      table.row(r.epoch(), r.owner(), r.action(), r.kind(), time(r.at()), text(r.reason()));
    }
    table.print(out);
  }

  private static String text(@Nullable Object value) {
    return value == null ? "-" : value.toString().replaceAll("\\s+", " ");
  }

  /** To the millisecond, in UTC, as the database clock recorded it. */
  private static String time(@Nullable Instant t) {
    return t == null ? "-" : t.truncatedTo(ChronoUnit.MILLIS).toString();
  }
}
