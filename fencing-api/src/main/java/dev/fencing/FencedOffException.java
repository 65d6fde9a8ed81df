package dev.fencing;

import java.util.Objects;
import java.util.Optional;

/**
 * A fenced write was refused: the job (or resource) has moved on from the epoch that tried, and the
 * write has been dropped. {@link #refusal()} says why: a newer claim owns it ({@link
 * FencedOutcome.Superseded}), or the lease expired and nobody reclaimed yet ({@link
 * FencedOutcome.LeaseExpired}), or the lease was never valid at that epoch.
 *
 * @since 0.1
 */
public final class FencedOffException extends FencingException {

  private static final long serialVersionUID = 1L;

  private final transient FencedOutcome.Refused refusal;

  /**
   * @throws NullPointerException if {@code refusal} is null
   */
  public FencedOffException(FencedOutcome.Refused refusal) {
    super(describe(Objects.requireNonNull(refusal, "refusal")));
    this.refusal = refusal;
  }

  /**
   * Returns {@code outcome} if it was accepted: {@code requireAccepted(ledger.deliver(lease,
   * json))}.
   *
   * @throws FencedOffException if it was refused; the write has been dropped
   * @throws NullPointerException if {@code outcome} is null
   */
  public static FencedOutcome.Accepted requireAccepted(FencedOutcome outcome) {
    return switch (Objects.requireNonNull(outcome, "outcome")) {
      case FencedOutcome.Accepted accepted -> accepted;
      case FencedOutcome.Refused refused -> throw new FencedOffException(refused);
    };
  }

  /** Returns why the write was refused. */
  public FencedOutcome.Refused refusal() {
    return refusal;
  }

  /** Returns the job id (in decimal) or resource key. */
  public String key() {
    return refusal.key();
  }

  /** Returns the epoch that tried to write. */
  public Epoch triedEpoch() {
    return refusal.epoch();
  }

  /** Returns the epoch that owns the key now, where a newer one does. */
  public Optional<Epoch> currentEpoch() {
    return switch (refusal) {
      case FencedOutcome.Superseded s -> Optional.of(s.current());
      case FencedOutcome.NotOwner n -> Optional.ofNullable(n.current());
      case FencedOutcome.LeaseExpired e -> Optional.of(e.epoch());
      case FencedOutcome.AlreadyFinished f -> Optional.of(f.epoch());
      case FencedOutcome.Removed r -> Optional.empty();
      case FencedOutcome.Cancelled c -> Optional.empty();
    };
  }

  static String describe(FencedOutcome.Refused refusal) {
    String head = "fenced off: " + refusal.key() + " at " + refusal.epoch() + ": ";
    return head
        + switch (refusal) {
          case FencedOutcome.Superseded s ->
              "a newer claim owns it ("
                  + s.current()
                  + (s.currentOwner() == null ? "" : ", owner '" + s.currentOwner() + "'")
                  + ")";
          case FencedOutcome.LeaseExpired e ->
              "the lease expired at " + e.expiredAt() + " and nobody has reclaimed it yet";
          case FencedOutcome.NotOwner n ->
              "owner '"
                  + n.owner()
                  + "' never held it at that epoch (now "
                  + n.current()
                  + ", owner "
                  + (n.currentOwner() == null ? "none" : "'" + n.currentOwner() + "'")
                  + ")";
          case FencedOutcome.AlreadyFinished f ->
              "this lease already finished it differently (now " + f.state() + ")";
          case FencedOutcome.Removed r ->
              "the job finished and was removed after its retention time";
          case FencedOutcome.Cancelled c ->
              "the job was cancelled" + (c.reason() == null ? "" : " (" + c.reason() + ")");
        };
  }
}
