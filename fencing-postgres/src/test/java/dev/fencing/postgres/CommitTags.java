package dev.fencing.postgres;

import dev.fencing.postgres.PostgresFencing.Engine;

/**
 * The command tag of the statement whose commit lands a write of the queue, per engine: what {@link
 * dev.fencing.testkit.fault.FlakyProxy#loseNextAcknowledgement} arms on to lose the reply to that
 * very commit. Where a write is one statement in autocommit, its own reply is the acknowledgement
 * of its commit; where it is a transaction, the reply to its {@code COMMIT} is.
 */
final class CommitTags {

  private CommitTags() {}

  /**
   * A claim. In place, one {@code UPDATE}. On the append-only engine, the first claim of a queue
   * (it makes the queue's window) is the transaction that merges requeued, expired and fresh work;
   * the one-call claim of fresh jobs that later claims take has a test of its own ({@link
   * AppendOnlyFreshClaimTest}).
   */
  static String firstClaimOfAQueue(Engine engine) {
    return switch (engine) {
      case UPDATE_IN_PLACE -> "UPDATE";
      case APPEND_ONLY -> "COMMIT";
    };
  }

  /**
   * A commit of one result without outbox messages. In place, one {@code UPDATE}; on the
   * append-only engine, one call of {@code fencing_append_complete}, which answers one row for the
   * one lease it committed.
   */
  static String complete(Engine engine) {
    return switch (engine) {
      case UPDATE_IN_PLACE -> "UPDATE";
      case APPEND_ONLY -> "SELECT 1";
    };
  }

  /**
   * A fail or a release. In place, one statement: the {@code UPDATE} in a CTE beside the insert
   * that parks a job with a priority again, answering one row (how many it updated); on the
   * append-only engine, a transaction (the claim row locked, a {@code requeue} or {@code done} row,
   * the count-off).
   */
  static String giveBack(Engine engine) {
    return switch (engine) {
      case UPDATE_IN_PLACE -> "SELECT 1";
      case APPEND_ONLY -> "COMMIT";
    };
  }
}
