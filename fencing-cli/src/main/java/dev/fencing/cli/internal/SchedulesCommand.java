package dev.fencing.cli.internal;

import dev.fencing.postgres.PostgresFencing;
import dev.fencing.schedule.FencedScheduler;
import dev.fencing.schedule.Missed;
import dev.fencing.schedule.Schedule;
import dev.fencing.schedule.ScheduleOverview;
import dev.fencing.schedule.Trigger;
import java.io.PrintWriter;
import java.time.Instant;
import java.util.List;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code fencing schedules}: every recurring schedule with its mark and next slots. */
@Command(
    name = "schedules",
    mixinStandardHelpOptions = true,
    description = {
      "List recurring schedules (fencing-schedule) with their revision, trigger, missed-slot"
          + " policy, high-water mark (the latest slot dealt with) and next slots.",
      "Next slots are computed from the stored definition, after the mark or the database's"
          + " clock, whichever is later."
    })
public final class SchedulesCommand extends DatabaseCommand {

  @Option(
      names = "--next",
      defaultValue = "1",
      description = "how many next slots to show, 0 to 100 (default: ${DEFAULT-VALUE})")
  int next;

  @Override
  public void run() {
    PostgresFencing fencing = database.fencing();
    List<ScheduleOverview> schedules =
        DatabaseOptions.reported(() -> FencedScheduler.overview(fencing.schedules(), next));
    PrintWriter out = out();
    if (schedules.isEmpty()) {
      out.println("no schedules in schema " + fencing.schema());
      return;
    }
    TextTable table =
        new TextTable("SCHEDULE", "REV", "QUEUE", "TRIGGER", "ZONE", "MISSED", "MARK", "NEXT")
            .rightAligned(1);
    for (ScheduleOverview o : schedules) {
      Schedule s = o.schedule();
      String nextSlots =
          o.nextSlots().stream().map(Instant::toString).collect(Collectors.joining(" "));
      if (s == null) {
        table.row(
            o.stored().name(),
            o.stored().revision(),
            "?",
            "(unreadable definition)",
            "?",
            "?",
            o.stored().mark(),
            "?");
      } else {
        table.row(
            s.name(),
            s.revision(),
            s.queue(),
            trigger(s.trigger()),
            s.zone().getId(),
            missed(s.missed()),
            o.stored().mark(),
            nextSlots);
      }
    }
    table.print(out);
  }

  private static String trigger(Trigger trigger) {
    return switch (trigger) {
      case Trigger.Cron c -> "cron " + c.expression();
      case Trigger.Every e ->
          "every " + e.interval().toString().substring(2).toLowerCase(java.util.Locale.ROOT);
    };
  }

  private static String missed(Missed missed) {
    return switch (missed) {
      case Missed.RunOnce o -> "run once";
      case Missed.RunAll a -> "run all (cap " + a.cap() + ")";
      case Missed.Skip s -> "skip";
    };
  }
}
