package dev.fencing.console.internal;

import dev.fencing.FencedQueue;
import dev.fencing.JobSnapshot;
import dev.fencing.JobState;
import dev.fencing.QueueLimits;
import dev.fencing.console.internal.Views.Backlog;
import dev.fencing.console.internal.Views.Bar;
import dev.fencing.console.internal.Views.Chart;
import dev.fencing.console.internal.Views.ClaimView;
import dev.fencing.console.internal.Views.JobRowView;
import dev.fencing.console.internal.Views.JobView;
import dev.fencing.console.internal.Views.MessageView;
import dev.fencing.console.internal.Views.OwnershipView;
import dev.fencing.console.internal.Views.QueueView;
import dev.fencing.console.internal.Views.RefusalView;
import dev.fencing.console.internal.Views.ScheduleView;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.postgres.admin.EpochClaim;
import dev.fencing.postgres.admin.JobDetails;
import dev.fencing.postgres.admin.JobHistory;
import dev.fencing.postgres.admin.JobOptionsView;
import dev.fencing.postgres.admin.JobPage;
import dev.fencing.postgres.admin.JobRow;
import dev.fencing.postgres.admin.JobSearch;
import dev.fencing.postgres.admin.OutboxBacklog;
import dev.fencing.postgres.admin.PostgresAdmin;
import dev.fencing.postgres.admin.QueueActivity;
import dev.fencing.postgres.admin.QueueSummary;
import dev.fencing.postgres.admin.RefusedWrite;
import dev.fencing.schedule.FencedScheduler;
import dev.fencing.schedule.Schedule;
import dev.fencing.schedule.ScheduleOverview;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/** Reads what the pages show, through the same admin code as the CLI, and words it. */
final class PageData {

  static final int CHART_W = 240;
  static final int CHART_H = 48;
  private static final java.time.format.DateTimeFormatter MINUTE =
      java.time.format.DateTimeFormatter.ofPattern("HH:mm", Locale.ROOT)
          .withZone(java.time.ZoneOffset.UTC);

  private final PostgresFencing fencing;
  private final PostgresAdmin admin;
  private final ActivityCache activityCache;

  PageData(PostgresFencing fencing) {
    this.fencing = fencing;
    this.admin = fencing.admin();
    this.activityCache = new ActivityCache(admin);
  }

  /** Stops the background reads. */
  void close() {
    activityCache.close();
  }

  String schema() {
    return fencing.schema();
  }

  List<QueueView> queues() {
    FencedQueue queue = fencing.queue();
    List<QueueSummary> summaries = admin.queues(false);
    Map<String, QueueActivity> activities =
        activityCache.get(summaries.stream().map(QueueSummary::queue).toList());
    List<QueueView> views = new ArrayList<>();
    for (QueueSummary q : summaries) {
      QueueActivity activity =
          activities.getOrDefault(q.queue(), new QueueActivity(q.queue(), null, List.of()));
      QueueLimits limits = queue.limits(q.queue());
      views.add(
          new QueueView(
              q.queue(),
              q.pending(),
              q.running(),
              q.failed(),
              q.completed() == null ? "—" : Long.toString(q.completed()),
              activity.oldestPendingSince() == null
                  ? "—"
                  : Shown.duration(Duration.between(activity.oldestPendingSince(), Instant.now())),
              limits.isNone() ? "none" : limits(limits),
              limits.isNone() ? "—" : Long.toString(queue.waitingForLimits(q.queue())),
              chart(activity.lastHour())));
    }
    return views;
  }

  Backlog backlog() {
    OutboxBacklog b = admin.outboxBacklog();
    return new Backlog(
        b.undelivered(),
        b.oldestUndeliveredAt() == null
            ? "—"
            : Shown.duration(Duration.between(b.oldestUndeliveredAt(), Instant.now())));
  }

  static Chart chart(List<QueueActivity.Bucket> buckets) {
    long max = 1;
    long completed = 0;
    long failed = 0;
    for (QueueActivity.Bucket b : buckets) {
      max = Math.max(max, b.completed() + b.failed());
      completed += b.completed();
      failed += b.failed();
    }
    List<Bar> bars = new ArrayList<>();
    int slot = buckets.isEmpty() ? CHART_W : CHART_W / buckets.size();
    for (int i = 0; i < buckets.size(); i++) {
      QueueActivity.Bucket b = buckets.get(i);
      long ch = height(b.completed(), max);
      long fh = height(b.failed(), max);
      long cy = CHART_H - ch;
      bars.add(
          new Bar(
              (long) i * slot + 2,
              cy,
              ch,
              cy - fh,
              fh,
              MINUTE.format(b.start())
                  + " UTC: "
                  + b.completed()
                  + " completed, "
                  + b.failed()
                  + " failed"));
    }
    return new Chart(bars, completed, failed);
  }

  private static long height(long value, long max) {
    return value == 0 ? 0 : Math.max(1, Math.round((double) value * (CHART_H - 2) / max));
  }

  static String limits(QueueLimits l) {
    List<String> parts = new ArrayList<>();
    l.runningLimit().ifPresent(n -> parts.add("at most " + n + " running"));
    l.rate().ifPresent(r -> parts.add("rate " + r));
    l.runningLimitPerGroup().ifPresent(n -> parts.add("at most " + n + " running per group"));
    l.ratePerGroup().ifPresent(r -> parts.add("rate " + r + " per group"));
    if (l.fifoPerGroup()) {
      parts.add("FIFO per group");
    }
    l.priorityAging().ifPresent(a -> parts.add("priority aging " + Shown.duration(a)));
    return String.join(", ", parts);
  }

  JobPage search(JobSearch search) {
    return admin.jobs(search);
  }

  static JobRowView row(JobRow j) {
    return new JobRowView(
        j.id(),
        j.queue(),
        Shown.lower(j.state()),
        Shown.text(j.key()),
        j.epoch(),
        Shown.text(j.owner()),
        j.attempts(),
        Shown.time(j.runAt()),
        Shown.time(j.finishedAt()),
        Shown.cut(j.lastError(), 160),
        j.priority(),
        Shown.text(j.group()));
  }

  Optional<JobView> job(long id, boolean showPayload) {
    Optional<JobDetails> found = admin.job(id);
    if (found.isEmpty()) {
      return Optional.empty();
    }
    JobDetails d = found.get();
    JobHistory history = admin.history(id).orElse(new JobHistory(List.of(), false, List.of()));
    JobOptionsView options = admin.options(id).orElse(new JobOptionsView(0, null, null));
    List<ClaimView> claims = new ArrayList<>();
    Instant lastClaim = null;
    for (EpochClaim c : history.claims()) {
      if (lastClaim == null) {
        lastClaim = c.claimedAt();
      }
      int refused = (int) history.refusals().stream().filter(r -> r.epoch() == c.epoch()).count();
      claims.add(
          new ClaimView(
              c.epoch(),
              Shown.text(c.owner()),
              Shown.time(c.claimedAt()),
              Shown.time(c.leaseExpiresAt()),
              c.ended(),
              refused));
    }
    List<RefusalView> refusals = new ArrayList<>();
    for (RefusedWrite r : history.refusals()) {
      refusals.add(
          new RefusalView(
              r.epoch(), r.owner(), r.action(), r.kind(), r.reason(), Shown.time(r.at())));
    }
    List<MessageView> messages =
        d.messages().stream()
            .map(
                m ->
                    new MessageView(
                        m.idx(),
                        m.epoch(),
                        m.destination(),
                        m.receiverKey(),
                        Shown.time(m.deliveredAt()),
                        Shown.text(m.outcome())))
            .collect(Collectors.toList());
    Instant started = lastClaim;
    String runTime =
        started == null
            ? "—"
            : Shown.duration(
                Duration.between(started, d.finishedAt() != null ? d.finishedAt() : Instant.now()));
    JobSnapshot job = d.job();
    boolean under = job.state() == JobState.PENDING || job.state() == JobState.RUNNING;
    return Optional.of(
        new JobView(
            job.id(),
            job.queue(),
            Shown.lower(job.state()),
            Shown.text(job.owner()),
            job.epoch(),
            job.attempts() + " of " + job.maxAttempts(),
            d.expiries(),
            Shown.text(job.lastError()),
            d.lastEvent(),
            Shown.time(d.createdAt()),
            Shown.time(job.runAt()),
            Shown.time(job.leaseExpiresAt()),
            Shown.time(d.finishedAt()),
            runTime,
            options.priority(),
            Shown.text(options.group()),
            Shown.text(options.key()),
            showPayload ? job.payload() : null,
            showPayload ? job.result() : null,
            claims,
            history.claimsComplete(),
            refusals,
            messages,
            job.state() == JobState.FAILED && !isCancelled(d),
            under));
  }

  /**
   * Both engines say {@code cancelled} as a cancelled job's last event, whatever its error reads.
   */
  private static boolean isCancelled(JobDetails d) {
    return d.lastEvent().equals("cancelled");
  }

  List<ScheduleView> schedules() {
    List<ScheduleView> views = new ArrayList<>();
    for (ScheduleOverview o : FencedScheduler.overview(fencing.schedules(), 3)) {
      Schedule s = o.schedule();
      List<String> next = o.nextSlots().stream().map(Shown::time).toList();
      if (s == null) {
        views.add(
            new ScheduleView(
                o.stored().name(),
                o.stored().revision(),
                "?",
                "(unreadable definition)",
                "?",
                "?",
                Shown.time(o.stored().mark()),
                next));
      } else {
        views.add(
            new ScheduleView(
                s.name(),
                s.revision(),
                s.queue(),
                s.trigger().toString(),
                s.zone().getId(),
                s.missed().toString().toLowerCase(Locale.ROOT),
                Shown.time(o.stored().mark()),
                next));
      }
    }
    return views;
  }

  List<OwnershipView> ownerships() {
    return admin.ownerships(500).stream()
        .map(
            o ->
                new OwnershipView(
                    o.resource(),
                    Shown.text(o.owner()),
                    o.epoch(),
                    Shown.time(o.leaseExpiresAt()),
                    o.valid()))
        .toList();
  }
}
