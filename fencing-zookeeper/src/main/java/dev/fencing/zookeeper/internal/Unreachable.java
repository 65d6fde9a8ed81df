package dev.fencing.zookeeper.internal;

/**
 * ZooKeeper did not answer in time, the connection or session broke, or it answered with an error
 * this backend does not expect: the request's outcome is unknown.
 */
final class Unreachable extends Exception {

  private static final long serialVersionUID = 1L;

  Unreachable(String message, Throwable cause) {
    super(message, cause);
  }
}
