package dev.fencing.receiver;

/**
 * A receiver's store failed: the database refused a statement, or stayed unreachable after a few
 * retries. Whether a delivery that ends in this exception was written is unknown; delivering it
 * again at the same epoch is safe.
 */
public final class ReceiverException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  /** Creates the exception with {@code message} and the failure that caused it. */
  public ReceiverException(String message, Throwable cause) {
    super(message, cause);
  }
}
