package dev.fencing.runtime;

/** The runtime's counters; {@code FencedRuntime.stats()} reads them. */
final class Counters {

  /** What is counted, in the order of {@link FencedRuntime.Stats}. */
  enum Count {
    CLAIMED,
    COMPLETED,
    FENCED_OFF,
    FAILED,
    RELEASED,
    ABANDONED,
    CLAIM_STATEMENTS,
    COMMIT_STATEMENTS,
    RENEW_STATEMENTS,
    RENEWED,
    STORE_ERRORS,
    CALLBACK_ERRORS
  }

  private final Tally<Count> tally = new Tally<>(Count.class);

  void add(Count name, long amount) {
    tally.add(name, amount);
  }

  void increment(Count name) {
    tally.increment(name);
  }

  void count(WorkOutcome outcome) {
    increment(
        switch (outcome) {
          case WorkOutcome.Completed c -> Count.COMPLETED;
          case WorkOutcome.FencedOff f -> Count.FENCED_OFF;
          case WorkOutcome.Failed f -> Count.FAILED;
          case WorkOutcome.Released r -> Count.RELEASED;
          case WorkOutcome.Abandoned a -> Count.ABANDONED;
        });
  }

  /** Returns the counters so far, with {@code inFlight} claims not yet ended. */
  FencedRuntime.Stats stats(int inFlight) {
    return new FencedRuntime.Stats(
        tally.get(Count.CLAIMED),
        tally.get(Count.COMPLETED),
        tally.get(Count.FENCED_OFF),
        tally.get(Count.FAILED),
        tally.get(Count.RELEASED),
        tally.get(Count.ABANDONED),
        inFlight,
        tally.get(Count.CLAIM_STATEMENTS),
        tally.get(Count.COMMIT_STATEMENTS),
        tally.get(Count.RENEW_STATEMENTS),
        tally.get(Count.RENEWED),
        tally.get(Count.STORE_ERRORS),
        tally.get(Count.CALLBACK_ERRORS));
  }
}
