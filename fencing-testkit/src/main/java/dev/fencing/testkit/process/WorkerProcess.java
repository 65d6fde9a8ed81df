package dev.fencing.testkit.process;

import dev.fencing.testkit.db.PostgresFixture;
import java.time.Duration;
import java.util.List;

/**
 * A real second JVM running {@link PuppetWorker} (this build's, or another build's on a class path
 * the test gives), driven line by line. Stalls and crashes are real signals: {@link #freeze()}
 * sends {@code SIGSTOP}, {@link #thaw()} {@code SIGCONT}, {@link #crash()} {@code SIGKILL}. Closing
 * it kills the process, so none outlives its test.
 *
 * @since 0.1
 */
public final class WorkerProcess implements AutoCloseable {

  /** How long a reply may take before the worker is reported as hung. */
  public static final Duration REPLY_TIMEOUT = Duration.ofSeconds(60);

  private final JavaProcess process;
  private int nextReply;

  private WorkerProcess(JavaProcess process) {
    this.process = process;
  }

  /**
   * Starts a worker JVM on this JVM's class path, with {@code backend} on {@code database}'s {@code
   * schema}, and waits until it is ready.
   *
   * @param name how reports call it, e.g. {@code zombie}
   * @throws IllegalStateException if it does not start, with its error output
   */
  public static WorkerProcess start(
      String name,
      Class<? extends FencingBackend> backend,
      PostgresFixture.Database database,
      String schema) {
    return ready(
        name,
        JavaProcess.start(
            name, JVM_OPTIONS, PuppetWorker.class, arguments(backend.getName(), database, schema)));
  }

  /**
   * Starts a worker JVM on {@code classPath} instead of this JVM's, with the backend named {@code
   * backendClass} on {@code database}'s {@code schema}, and waits until it is ready: the {@link
   * PuppetWorker} of another build, such as an earlier one in a rolling upgrade, driven with the
   * same commands. Its classes are that class path's alone, {@code PuppetWorker} and the backend
   * among them.
   *
   * @param name how reports call it
   * @param classPath the child's whole class path, entries separated by {@link
   *     java.io.File#pathSeparator}
   * @param backendClass the binary name of a {@link FencingBackend} on {@code classPath}
   * @throws IllegalStateException if it does not start, with its error output
   */
  public static WorkerProcess start(
      String name,
      String classPath,
      String backendClass,
      PostgresFixture.Database database,
      String schema) {
    return ready(
        name,
        JavaProcess.start(
            name,
            JVM_OPTIONS,
            classPath,
            PuppetWorker.class.getName(),
            arguments(backendClass, database, schema)));
  }

  private static WorkerProcess ready(String name, JavaProcess process) {
    WorkerProcess worker = new WorkerProcess(process);
    String ready = worker.awaitReply();
    if (!ready.startsWith("ok ready")) {
      worker.close();
      throw new IllegalStateException(
          "worker " + name + " did not start: " + ready + "; stderr: " + process.stderr());
    }
    return worker;
  }

  /**
   * Makes worker JVMs start faster, once per class path ({@link JavaProcess#warmUp}): a worker that
   * takes no part in any test claims from and drains a queue of its own, which no test uses, and
   * closes. A suite that starts many workers calls this first.
   *
   * @throws IllegalStateException if that worker does not start or answers with an error
   */
  public static void warmUp(
      Class<? extends FencingBackend> backend, PostgresFixture.Database database, String schema) {
    JavaProcess.warmUp(
        "worker-warm-up",
        JVM_OPTIONS,
        PuppetWorker.class,
        arguments(backend.getName(), database, schema),
        process -> {
          WorkerProcess worker = new WorkerProcess(process);
          String ready = worker.awaitReply();
          if (!ready.startsWith("ok ready")) {
            throw new IllegalStateException("the warm-up worker did not start: " + ready);
          }
          for (String command :
              List.of(
                  "claim " + WARM_UP_QUEUE + " warm-up 60000",
                  "drain " + WARM_UP_QUEUE + " warm-up 60000 10")) {
            String reply = worker.call(command);
            if (!reply.startsWith("ok")) {
              throw new IllegalStateException(
                  "the warm-up worker answered '" + command + "' with: " + reply);
            }
          }
        });
  }

  /** The queue the warm-up worker claims from: no test enqueues on it. */
  static final String WARM_UP_QUEUE = "fencing_testkit_warm_up";

  private static final List<String> JVM_OPTIONS = List.of("-Xss512k");

  private static List<String> arguments(
      String backend, PostgresFixture.Database database, String schema) {
    return List.of(backend, database.jdbcUrl(), database.user(), database.password(), schema);
  }

  /** Returns the name given at start. */
  public String name() {
    return process.name();
  }

  /** Returns the operating system's process id. */
  public long pid() {
    return process.pid();
  }

  /** Sends {@code command} and returns its reply. */
  public String call(String command) {
    send(command);
    return awaitReply();
  }

  /** Sends {@code command} without waiting: a frozen worker reads it when it is thawed. */
  public void send(String command) {
    process.send(command);
  }

  /**
   * Returns the next reply.
   *
   * @throws IllegalStateException if the worker died or did not answer within {@link
   *     #REPLY_TIMEOUT}
   */
  public String awaitReply() {
    int index = process.await(nextReply, line -> true, REPLY_TIMEOUT);
    nextReply = index + 1;
    return process.lines().get(index);
  }

  /** Freezes the process with {@code SIGSTOP} and returns once the kernel reports it stopped. */
  public void freeze() {
    process.freeze();
  }

  /** Thaws the process with {@code SIGCONT}. */
  public void thaw() {
    process.thaw();
  }

  /** Kills the process with {@code SIGKILL}, as a crash would, and waits for it to end. */
  public void crash() {
    process.crash();
  }

  /** Returns whether the process is still running (or frozen). */
  public boolean isAlive() {
    return process.isAlive();
  }

  @Override
  public void close() {
    process.close();
  }
}
