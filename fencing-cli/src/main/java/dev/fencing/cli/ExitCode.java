package dev.fencing.cli;

/**
 * The exit codes of the {@code fencing} command: {@value #OK} done; {@value #REFUSED} the change
 * does not apply to the job's state; {@value #USAGE} bad arguments; {@value #UNREACHABLE} the
 * database could not be reached; {@value #NO_SCHEMA} the schema has no fencing tables, or is at a
 * version this fencing may not run on; {@value #UNKNOWN_JOB} no job has that id.
 */
public final class ExitCode {

  /** The command did what it was asked. */
  public static final int OK = 0;

  /** Requeue, fail or cancel was refused: the job is in a state the change does not apply to. */
  public static final int REFUSED = 1;

  /** Bad arguments (picocli's usage errors). */
  public static final int USAGE = 2;

  /** The database could not be reached, or refused the login. */
  public static final int UNREACHABLE = 3;

  /**
   * The schema holds no fencing tables, or is at a version this fencing may not run on (older, or
   * newer and no longer compatible).
   */
  public static final int NO_SCHEMA = 4;

  /** No job has the id given. */
  public static final int UNKNOWN_JOB = 5;

  private ExitCode() {}
}
