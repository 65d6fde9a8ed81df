package dev.fencing.console.internal;

import java.util.List;
import org.jspecify.annotations.Nullable;

/** What the templates show: every value already turned into the text on the page. */
public final class Views {

  private Views() {}

  /** One queue's row on the queues page. */
  public record QueueView(
      String name,
      long pending,
      long running,
      long failed,
      String completed,
      String oldestPending,
      String limits,
      String waiting,
      Chart chart) {}

  /**
   * The last hour of one queue as 12 bars in a 240 × 48 box, one per 5 minutes: completed jobs from
   * the bottom, failed ones stacked on them.
   *
   * @param completed jobs completed in the hour
   * @param failed jobs failed in the hour
   */
  public record Chart(List<Bar> bars, long completed, long failed) {}

  /**
   * One 5-minute bar: where its two rectangles start and how high they are, in the chart's pixels.
   *
   * @param title the tooltip, e.g. {@code "10:05 UTC: 12 completed, 1 failed"}
   */
  public record Bar(
      long x, long completedY, long completedH, long failedY, long failedH, String title) {}

  /** The outbox's undelivered messages. */
  public record Backlog(long undelivered, String oldest) {}

  /** One job in a list. */
  public record JobRowView(
      long id,
      String queue,
      String state,
      String key,
      long epoch,
      String owner,
      int attempts,
      String runAt,
      String finishedAt,
      String lastError,
      int priority,
      String group) {}

  /** The search form's values, as typed. */
  public record Search(String queue, String state, String key, String id) {}

  /** One claim of a job. */
  public record ClaimView(
      long epoch, String owner, String claimedAt, String lease, String ended, int refused) {}

  /** One refused write. */
  public record RefusalView(
      long epoch, String owner, String action, String kind, String reason, String at) {}

  /** An outbox message of a job. */
  public record MessageView(
      int idx, long epoch, String destination, String key, String delivered, String outcome) {}

  /** One job's page. */
  public record JobView(
      long id,
      String queue,
      String state,
      String owner,
      long epoch,
      String attempts,
      int expiries,
      String lastError,
      String lastEvent,
      String createdAt,
      String runAt,
      String leaseExpiresAt,
      String finishedAt,
      String runTime,
      int priority,
      String group,
      String key,
      @Nullable String payload,
      @Nullable String result,
      List<ClaimView> claims,
      boolean claimsComplete,
      List<RefusalView> refusals,
      List<MessageView> messages,
      boolean canRequeue,
      boolean canEnd) {}

  /** One recurring schedule. */
  public record ScheduleView(
      String name,
      long revision,
      String queue,
      String trigger,
      String zone,
      String missed,
      String mark,
      List<String> next) {}

  /** One resource ownership. */
  public record OwnershipView(
      String resource, String owner, long epoch, String lease, boolean valid) {}
}
