package dev.fencing.console.internal;

import dev.fencing.CancelResult;
import dev.fencing.console.ConsoleUser;
import dev.fencing.postgres.admin.AdminChange;
import dev.fencing.postgres.admin.PostgresAdmin;
import jakarta.servlet.http.HttpServletRequest;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The operator's actions, each through {@link PostgresAdmin} as the CLI's verbs, each logged with
 * who did it and what came of it.
 */
final class Actions {

  private static final Logger AUDIT = LoggerFactory.getLogger("dev.fencing.console.audit");
  private static final Pattern JOB_ACTION =
      Pattern.compile("/jobs/([0-9]{1,18})/(requeue|fail|cancel)");

  /** What an action did, and the page to show next (a path under the console). */
  record Done(boolean ok, String message, String then) {}

  private final PostgresAdmin admin;

  Actions(PostgresAdmin admin) {
    this.admin = admin;
  }

  @Nullable Done post(String path, HttpServletRequest request, ConsoleUser user) {
    Matcher m = JOB_ACTION.matcher(path);
    if (m.matches()) {
      long id = Long.parseLong(m.group(1));
      Done done = job(id, m.group(2), request.getParameter("reason"));
      audit(user, m.group(2) + " job " + id, (done.ok() ? "done: " : "refused: ") + done.message());
      return done;
    }
    if (path.equals("/purge")) {
      String queue = blankToNull(request.getParameter("queue"));
      Duration olderThan = Duration.ofDays(days(request.getParameter("older-than-days")));
      long deleted = admin.purge(olderThan, queue);
      String what =
          "purge "
              + (queue == null ? "every queue" : "queue " + queue)
              + " older than "
              + olderThan;
      audit(user, what, "done: " + deleted + " deleted");
      return new Done(true, "Purged " + deleted + " finished jobs.", "/");
    }
    return null;
  }

  private Done job(long id, String action, @Nullable String reason) {
    String then = "/jobs/" + id;
    return switch (action) {
      case "requeue" -> change(admin.requeue(id), "Requeued: it runs again.", then);
      case "fail" ->
          change(admin.fail(id, reasonOr(reason, "failed from the console")), "Failed.", then);
      default -> cancelled(admin.cancel(id, reasonOr(reason, "cancelled from the console")), then);
    };
  }

  private static Done change(AdminChange change, String ok, String then) {
    return switch (change) {
      case AdminChange.Changed c -> new Done(true, ok, then);
      case AdminChange.Refused r -> new Done(false, r.reason(), then);
      case AdminChange.NotFound n -> new Done(false, "No job " + n.jobId() + ".", "/jobs");
    };
  }

  private static Done cancelled(CancelResult result, String then) {
    return switch (result) {
      case CancelResult.Cancelled c ->
          new Done(
              true,
              "Cancelled; its holder is fenced off at epoch " + c.fence().value() + ".",
              then);
      case CancelResult.AlreadyEnded e ->
          new Done(
              false,
              "the job already ended " + e.state().name().toLowerCase(java.util.Locale.ROOT) + ".",
              then);
      case CancelResult.NotFound n -> new Done(false, "No job " + n.jobId() + ".", "/jobs");
    };
  }

  private static long days(@Nullable String text) {
    try {
      long days = Long.parseLong(String.valueOf(text).strip());
      if (days >= 1 && days <= 3650) {
        return days;
      }
    } catch (NumberFormatException e) {
      // named below
    }
    throw new IllegalArgumentException(
        "older-than-days must be a whole number of days from 1 to 3650, but was '" + text + "'");
  }

  private static String reasonOr(@Nullable String reason, String otherwise) {
    String r = blankToNull(reason);
    return r == null ? otherwise : r;
  }

  private static @Nullable String blankToNull(@Nullable String s) {
    return s == null || s.isBlank() ? null : s.strip();
  }

  static void audit(ConsoleUser user, String what, String result) {
    AUDIT.info(
        "console: {} ({}) {}: {}",
        user.name(),
        user.role().name().toLowerCase(java.util.Locale.ROOT),
        what,
        result);
  }
}
