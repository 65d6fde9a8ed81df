package dev.fencing.cli.internal;

/** A failure the CLI reports in one line with its own exit code. */
public final class CliException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  private final int exitCode;

  /**
   * @param exitCode the process's exit code, not 0
   * @param message the line printed after {@code fencing: }
   */
  public CliException(int exitCode, String message) {
    super(message);
    if (exitCode == 0) {
      throw new IllegalArgumentException("exitCode must not be 0, but was 0");
    }
    this.exitCode = exitCode;
  }

  /** Returns the process's exit code. */
  public int exitCode() {
    return exitCode;
  }
}
