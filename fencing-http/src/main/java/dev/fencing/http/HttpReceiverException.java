package dev.fencing.http;

import dev.fencing.StoreUnavailableException;

/**
 * An HTTP receiver refused a request for a reason other than its input or its epoch (401
 * unauthorised, an unexpected status), or could not be reached after the client's retries. After a
 * refusal nothing was written; after the retries ran out, whether the last attempt was written is
 * unknown, and delivering again at the same epoch is safe. A {@link StoreUnavailableException}: the
 * receiver is the store the delivery goes to.
 *
 * @since 0.1
 */
public final class HttpReceiverException extends StoreUnavailableException {

  private static final long serialVersionUID = 1L;

  private final int status;

  /**
   * Creates the exception.
   *
   * @param status the HTTP status the server answered, or 0 if no answer came
   */
  public HttpReceiverException(int status, String message, Throwable cause) {
    super(message, cause);
    this.status = status;
  }

  /** Creates the exception for an answer with {@code status}. */
  public HttpReceiverException(int status, String message) {
    super(message);
    this.status = status;
  }

  /** Returns the HTTP status the server answered, or 0 if no answer came. */
  public int status() {
    return status;
  }
}
