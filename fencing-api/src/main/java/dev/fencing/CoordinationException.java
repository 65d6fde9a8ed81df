package dev.fencing;

/**
 * A coordination service could not be reached or answered with an error. The message names the
 * service and its endpoints; the operation's outcome is unknown unless its documentation says
 * otherwise.
 *
 * @since 0.1
 */
public class CoordinationException extends StoreUnavailableException {

  private static final long serialVersionUID = 1L;

  /** Creates one with a message that says which service and what happened. */
  public CoordinationException(String message, Throwable cause) {
    super(message, cause);
  }

  /** Creates one with a message that says which service and what happened. */
  public CoordinationException(String message) {
    super(message);
  }
}
