package dev.fencing.runtime;

import java.util.concurrent.atomic.AtomicLong;

/** The runtime's counters; {@code FencedRuntime.stats()} reads them. */
final class Counters {
  final AtomicLong claimed = new AtomicLong();
  final AtomicLong completed = new AtomicLong();
  final AtomicLong fencedOff = new AtomicLong();
  final AtomicLong failed = new AtomicLong();
  final AtomicLong released = new AtomicLong();
  final AtomicLong abandoned = new AtomicLong();
  final AtomicLong claimStatements = new AtomicLong();
  final AtomicLong commitStatements = new AtomicLong();
  final AtomicLong renewStatements = new AtomicLong();
  final AtomicLong renewed = new AtomicLong();
  final AtomicLong storeErrors = new AtomicLong();
  final AtomicLong callbackErrors = new AtomicLong();

  void count(WorkOutcome outcome) {
    (switch (outcome) {
          case WorkOutcome.Completed c -> completed;
          case WorkOutcome.FencedOff f -> fencedOff;
          case WorkOutcome.Failed f -> failed;
          case WorkOutcome.Released r -> released;
          case WorkOutcome.Abandoned a -> abandoned;
        })
        .incrementAndGet();
  }
}
