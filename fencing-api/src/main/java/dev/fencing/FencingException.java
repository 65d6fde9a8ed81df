package dev.fencing;

/**
 * The root of what a fencing backend throws when an operation cannot give its answer. Every method
 * of {@link FencedQueue}, {@link FencedReceiver}, {@link ResourceOwnership} and {@link
 * FencedOutbox} throws only these, besides the JDK's for bad input:
 *
 * <ul>
 *   <li>{@link StoreUnavailableException}: the store (a database, a coordination service, a remote
 *       receiver) could not be reached or refused the statement, after the backend's retries. A
 *       read got nothing; whether a write landed is said by the method (most writes are safe to
 *       repeat). {@link CoordinationException} is the same for a coordination service.
 *   <li>{@link OutcomeUnknownException}: a write whose outcome cannot be known and that is not safe
 *       to repeat blindly.
 *   <li>{@link FencedOffException}: a fenced write was refused because a newer epoch owns the key.
 *   <li>{@link SchemaNotInstalledException}: the store has no (or an older) fencing schema.
 *   <li>{@link SchemaVersionException}: the store's schema records a version this library may not
 *       run on (older than it needs, or newer and no longer compatible).
 *   <li>{@link JobCodecException}: a {@link JobCodec} could not turn a payload or result into JSON,
 *       or JSON back into its {@link JobType}'s class; nothing was sent to the store.
 * </ul>
 *
 * <p>Bad input is refused before anything is sent, with {@link IllegalArgumentException} (or {@link
 * NullPointerException} for a null where none is allowed) naming the parameter and the value; an
 * operation on something closed throws {@link IllegalStateException}. No exception type of a
 * backend's implementation (a driver, jOOQ, a client library) escapes; it is kept as the cause.
 *
 * @since 0.1
 */
public abstract class FencingException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  /** Creates one with a message that says what failed and what is known of the outcome. */
  protected FencingException(String message, Throwable cause) {
    super(message, cause);
  }

  /** Creates one with a message that says what failed and what is known of the outcome. */
  protected FencingException(String message) {
    super(message);
  }
}
