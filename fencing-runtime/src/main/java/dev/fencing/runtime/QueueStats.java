package dev.fencing.runtime;

/**
 * One queue's counters since its workers started ({@link FencedWorkers#stats()}).
 *
 * @param inFlight claims not yet ended: waiting for a thread, running, or committing
 * @since 0.1
 */
public record QueueStats(
    long claimed,
    long completed,
    long fencedOff,
    long failed,
    long released,
    long abandoned,
    int inFlight,
    long claimStatements,
    long commitStatements,
    long renewStatements,
    long renewed,
    long storeErrors,
    long callbackErrors) {

  /** Returns how many claims have ended, in any outcome. */
  public long ended() {
    return completed + fencedOff + failed + released + abandoned;
  }
}
