package dev.fencing;

/**
 * A write whose outcome cannot be known: the connection was lost after the commit was sent, so it
 * may have landed or not. Retrying may do it twice. Writes that can be retried safely (a keyed
 * enqueue, a commit under a lease) resolve this case themselves and never throw it.
 *
 * @since 0.1
 */
public final class OutcomeUnknownException extends FencingException {

  private static final long serialVersionUID = 1L;

  /**
   * @param message what was being written and what a retry would risk
   * @param cause the failure that hid the outcome
   */
  public OutcomeUnknownException(String message, Throwable cause) {
    super(message, cause);
  }
}
