package dev.fencing.runtime;

/** The runtime's counters; {@code QueueRuntime.stats()} reads them. */
final class Counters {

  /** What is counted, in the order of {@link QueueStats}. */
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

  long get(Count name) {
    return tally.get(name);
  }
}
