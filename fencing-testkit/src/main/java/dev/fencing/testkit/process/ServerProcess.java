package dev.fencing.testkit.process;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * A program a test starts and owns: a server (etcd, ZooKeeper, PgBouncer, Patroni) or any other OS
 * process, its standard output and error appended to a log file. Built with {@link #builder(List)},
 * whose {@code start()} returns once it is ready (a port accepts, a log line appears, a probe says
 * so) or fails within a bound with the tail of its log.
 *
 * <p>Everything goes through its pid: {@link #freeze()} sends {@code SIGSTOP}, {@link #thaw()}
 * {@code SIGCONT}, {@link #kill()} {@code SIGKILL}, {@link #stop()} {@code SIGTERM} and {@code
 * SIGKILL} after a grace. {@link #close()} stops it, once however often it is called, and the end
 * of this JVM kills every one still running, so none outlives its test.
 */
public final class ServerProcess extends OwnedProcess implements AutoCloseable {

  /** How long {@link #kill()} waits for the kernel to end a process after {@code SIGKILL}. */
  static final Duration KILL_WAIT = Duration.ofSeconds(10);

  private static final Duration POLL = Duration.ofMillis(50);

  /** Whether a process is ready; one that throws is not, and its throw explains a timeout. */
  @FunctionalInterface
  public interface Probe {

    /** Returns whether the process is ready. */
    boolean ready() throws Exception;
  }

  private final ServerLog log;
  private final Duration stopGrace;
  private boolean closed;

  private ServerProcess(String name, Process process, ServerLog log, Duration stopGrace) {
    super(name, process);
    this.log = log;
    this.stopGrace = stopGrace;
  }

  /**
   * Returns a builder for {@code command}, the program and its arguments.
   *
   * @throws IllegalArgumentException if {@code command} is empty
   */
  public static ServerProcessBuilder builder(List<String> command) {
    return new ServerProcessBuilder(command);
  }

  /** Returns a builder for {@code command}, the program and its arguments. */
  public static ServerProcessBuilder builder(String... command) {
    return builder(List.of(command));
  }

  /** Starts {@code builder}'s program; see {@link ServerProcessBuilder#start()}. */
  static ServerProcess start(
      ProcessBuilder builder, String name, Path logFile, Duration stopGrace) {
    try {
      Files.createDirectories(logFile.toAbsolutePath().getParent());
      ServerLog log = new ServerLog(logFile, Files.exists(logFile) ? Files.size(logFile) : 0);
      builder
          .redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()));
      Process process = builder.start();
      killAtExit(process);
      return new ServerProcess(name, process, log, stopGrace);
    } catch (IOException e) {
      throw new UncheckedIOException("could not start " + name + ": " + builder.command(), e);
    }
  }

  /** Returns the process, for a test that gathers the processes it started. */
  public ProcessHandle handle() {
    return process.toHandle();
  }

  /** Returns the file its output is appended to. */
  public Path log() {
    return log.file();
  }

  /** Returns the last {@code lines} lines of its log, headed by the log's path. */
  public String logTail(int lines) {
    return tail(log.file(), lines);
  }

  /**
   * Returns the last {@code lines} lines of {@code log}, headed by its path, for a failure message
   * (the error instead, if it cannot be read): for the logs of processes that have ended.
   */
  public static String tail(Path log, int lines) {
    return ServerLog.tail(log, lines);
  }

  /**
   * Waits until {@code probe} says {@code what} holds, polling every 50 ms.
   *
   * @throws IllegalStateException if the process ends first, or {@code within} passes, with the
   *     tail of its log (and the probe's last throw as the cause)
   */
  public void await(String what, Probe probe, Duration within) {
    await(what, probe, System.nanoTime() + within.toNanos(), within);
  }

  /** Waits as {@link #await(String, Probe, Duration)} until {@code deadline} ({@code nanoTime}). */
  void await(String what, Probe probe, long deadline, Duration bound) {
    @Nullable Exception last = null;
    while (true) {
      try {
        if (probe.ready()) {
          return;
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted waiting for " + what + " of " + this, e);
      } catch (Exception e) {
        last = e;
      }
      if (!process.isAlive()) {
        throw failure("exited with " + process.exitValue() + " before " + what, last);
      }
      if (System.nanoTime() - deadline > 0) {
        throw failure("did not show " + what + " within " + bound, last);
      }
      waitFor(POLL); // returns early if it exits
    }
  }

  /**
   * Waits until it has logged a line that {@code matches} since it started, and returns the first.
   *
   * @throws IllegalStateException if the process ends without it, or {@code within} passes
   */
  public String awaitLogLine(Predicate<String> matches, Duration within) {
    await("a matching log line", () -> loggedLine(matches) != null, within);
    return java.util.Objects.requireNonNull(loggedLine(matches));
  }

  /** Returns the first line it has logged that {@code matches}, or null. */
  @Nullable String loggedLine(Predicate<String> matches) {
    try {
      return log.firstNewLine(matches);
    } catch (IOException e) {
      throw new UncheckedIOException("could not read " + log.file(), e);
    }
  }

  /**
   * Waits up to {@code within} for the process to end by itself.
   *
   * @return its exit code
   * @throws IllegalStateException if it still runs then
   */
  public int awaitExit(Duration within) {
    if (!waitFor(within)) {
      throw failure("did not end within " + within, null);
    }
    return process.exitValue();
  }

  /**
   * Kills it with {@code SIGKILL}, as a crash would, and waits until it is gone; nothing if it has
   * ended.
   *
   * @throws IllegalStateException if it outlives {@code SIGKILL} by 10 s
   */
  public void kill() {
    process.destroyForcibly();
    if (!waitFor(KILL_WAIT)) {
      throw failure("outlived SIGKILL by " + KILL_WAIT, null);
    }
  }

  /**
   * Asks it to end with {@code SIGTERM} (a frozen one is thawed to take it), waits the stop grace
   * set on the builder, then {@link #kill()}s it if it still runs; nothing if it has ended.
   */
  public void stop() {
    if (!process.isAlive()) {
      return;
    }
    process.destroy();
    if (frozen()) {
      thaw();
    }
    if (!waitFor(stopGrace)) {
      kill();
    }
  }

  /** {@link #stop()}s it the first time; later calls do nothing. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    stop();
  }

  @Override
  public String toString() {
    return name() + " (pid " + pid() + ", log " + log.file().toAbsolutePath() + ")";
  }

  private boolean waitFor(Duration within) {
    try {
      return process.waitFor(within.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted waiting for " + this, e);
    }
  }

  private IllegalStateException failure(String what, @Nullable Exception cause) {
    return new IllegalStateException(
        name()
            + " (pid "
            + pid()
            + ") "
            + what
            + (cause == null ? "" : "; last: " + cause)
            + "\n"
            + logTail(30),
        cause);
  }
}
