package dev.fencing;

/**
 * The store could not be reached, or refused the statement, after the backend's retries. A read got
 * nothing. Whether a write landed is unknown unless the method says otherwise; the writes of a
 * lease (complete, fail, renew, release), a delivery to a receiver at an epoch and a keyed enqueue
 * are safe to repeat, and a repeat reports the truth. The message names the store and the
 * operation; the cause is the driver's or client's failure.
 *
 * @since 0.1
 */
public class StoreUnavailableException extends FencingException {

  private static final long serialVersionUID = 1L;

  /** Creates one with a message that names the store and the operation. */
  public StoreUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }

  /** Creates one with a message that names the store and the operation. */
  public StoreUnavailableException(String message) {
    super(message);
  }
}
