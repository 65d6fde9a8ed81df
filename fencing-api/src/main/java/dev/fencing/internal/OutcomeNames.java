package dev.fencing.internal;

import dev.fencing.FencedOutcome;

/**
 * The one name of each fenced outcome, as the outbox's {@code outcome} column keeps it and as the
 * metrics tag it, so that the two never disagree. Internal: exported only to the fencing modules,
 * not an API.
 */
public final class OutcomeNames {

  private OutcomeNames() {}

  /**
   * Returns the outcome's name: {@code accepted}, {@code repeat} for an accepted retry, or the
   * {@linkplain #refusal refusal's}.
   */
  public static String of(FencedOutcome outcome) {
    return switch (outcome) {
      case FencedOutcome.Accepted a -> a.repeat() ? "repeat" : "accepted";
      case FencedOutcome.Refused r -> refusal(r);
    };
  }

  /**
   * Returns the refusal's name: {@code superseded}, {@code expired}, {@code not_owner}, {@code
   * finished}, {@code removed} or {@code cancelled}.
   */
  public static String refusal(FencedOutcome.Refused refusal) {
    return switch (refusal) {
      case FencedOutcome.Superseded s -> "superseded";
      case FencedOutcome.LeaseExpired e -> "expired";
      case FencedOutcome.NotOwner n -> "not_owner";
      case FencedOutcome.AlreadyFinished f -> "finished";
      case FencedOutcome.Removed r -> "removed";
      case FencedOutcome.Cancelled c -> "cancelled";
    };
  }
}
