package dev.fencing.console.internal;

import dev.fencing.console.ConsoleRole;
import dev.fencing.console.ConsoleUser;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * What every page's frame shows: where the console is mounted, who is looking, the session's CSRF
 * token for its forms, and a message from the last action.
 *
 * @param base the console's path from the host's root, without a trailing slash ("" at the root)
 * @param nav the page's tab: queues, jobs, schedules, ownerships, or "" for none
 */
public record Frame(
    String title,
    String base,
    String schema,
    @Nullable ConsoleUser user,
    boolean ownLogin,
    String csrf,
    Map<String, String> extraFields,
    String nav,
    @Nullable String flash,
    boolean flashIsError) {

  /** Whether the user may act on jobs. */
  public boolean operator() {
    return user != null && user.role().covers(ConsoleRole.OPERATOR);
  }

  /** The user's name and role, for the header. */
  public String who() {
    return user == null
        ? "not logged in"
        : user.name() + " (" + user.role().name().toLowerCase(java.util.Locale.ROOT) + ")";
  }

  /** Whether a logout button makes sense: a login of the console's own. */
  public boolean canLogOut() {
    return ownLogin && user != null && !user.name().startsWith("anonymous@");
  }

  /** The same frame with another title and tab. */
  public Frame page(String title, String nav) {
    return new Frame(
        title, base, schema, user, ownLogin, csrf, extraFields, nav, flash, flashIsError);
  }
}
