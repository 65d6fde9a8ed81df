package dev.fencing.testkit.property;

/**
 * An interleaving could not be run to its end: a worker died unexpectedly, reported an error, or
 * the database went away. The message says which worker and which step; every process the runner
 * started has been killed.
 *
 * @since 0.1
 */
public final class InterleavingAbortedException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  InterleavingAbortedException(String message, Throwable cause) {
    super(message, cause);
  }
}
