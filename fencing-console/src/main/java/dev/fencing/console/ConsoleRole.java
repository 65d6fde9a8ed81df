package dev.fencing.console;

/**
 * What a console user may do.
 *
 * @since 0.1
 */
public enum ConsoleRole {
  /** Reads every page; sees payloads and results only when the console allows viewers to. */
  VIEWER,
  /** Reads every page with payloads, and requeues, fails, cancels and purges jobs. */
  OPERATOR;

  /** Returns whether this role may do what {@code needed} may. */
  public boolean covers(ConsoleRole needed) {
    return compareTo(needed) >= 0;
  }
}
