package dev.fencing.testkit.process;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
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
 *
 * @since 0.1
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
  public static Builder builder(List<String> command) {
    return new Builder(command);
  }

  /** Returns a builder for {@code command}, the program and its arguments. */
  public static Builder builder(String... command) {
    return builder(List.of(command));
  }

  /** Starts {@code builder}'s program; see {@link Builder#start()}. */
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

  /**
   * How to start a {@link ServerProcess}: the command, where it runs, its environment, its log,
   * when it counts as ready and how long it may take. Every setting is optional but the command.
   */
  public static final class Builder {

    /** A condition of readiness; its probe may look at the process started. */
    private record Readiness(String what, Function<ServerProcess, Probe> probe) {}

    private final List<String> command;
    private String name;
    private @Nullable Path directory;
    private final Map<String, String> environment = new LinkedHashMap<>();
    private Predicate<String> removed = variable -> false;
    private @Nullable Path log;
    private final List<Readiness> readiness = new ArrayList<>();
    private Duration readyWithin = Duration.ofSeconds(30);
    private Duration stopGrace = Duration.ofSeconds(5);

    Builder(List<String> command) {
      if (command.isEmpty()) {
        throw new IllegalArgumentException("command must name a program, but was empty");
      }
      this.command = List.copyOf(command);
      this.name = Path.of(command.getFirst()).getFileName().toString();
    }

    /** Sets what messages call the process; the program's file name by default. */
    public Builder name(String name) {
      this.name = name;
      return this;
    }

    /** Sets the working directory; this JVM's by default. */
    public Builder directory(Path directory) {
      this.directory = directory;
      return this;
    }

    /** Sets an environment variable of the process; it inherits this JVM's others. */
    public Builder environment(String variable, String value) {
      environment.put(variable, value);
      return this;
    }

    /**
     * Leaves out of the inherited environment every variable whose name {@code matches} (those set
     * with {@link #environment(String, String)} stay).
     */
    public Builder withoutEnvironment(Predicate<String> matches) {
      removed = removed.or(matches);
      return this;
    }

    /**
     * Sets the file its standard output and error are appended to (its directory is created); a new
     * temporary file by default. Readiness by log line looks only at what this process writes.
     */
    public Builder log(Path log) {
      this.log = log;
      return this;
    }

    /** Makes it ready once a connection to {@code port} on the loopback address succeeds. */
    public Builder readyWhenListening(int port) {
      return ready("a listener on port " + port, started -> () -> listening(port));
    }

    /** Makes it ready once it has logged a line that contains {@code text}. */
    public Builder readyWhenLogShows(String text) {
      return ready(
          "a log line with '" + text + "'",
          started -> () -> started.loggedLine(line -> line.contains(text)) != null);
    }

    /**
     * Makes it ready once {@code probe} returns true, polled every 50 ms; with several conditions,
     * once each has held.
     *
     * @param what how a failure names the condition
     */
    public Builder readyWhen(String what, Probe probe) {
      return ready(what, started -> probe);
    }

    private Builder ready(String what, Function<ServerProcess, Probe> probe) {
      readiness.add(new Readiness(what, probe));
      return this;
    }

    /**
     * Sets how long {@link #start()} waits for readiness before it kills the process and fails: 30
     * s by default.
     *
     * @throws IllegalArgumentException unless positive
     */
    public Builder readyWithin(Duration within) {
      if (within.isNegative() || within.isZero()) {
        throw new IllegalArgumentException("readyWithin must be positive, but was " + within);
      }
      this.readyWithin = within;
      return this;
    }

    /**
     * Sets how long {@link ServerProcess#stop()} waits after {@code SIGTERM} before {@code
     * SIGKILL}: 5 s by default.
     *
     * @throws IllegalArgumentException if negative
     */
    public Builder stopGrace(Duration grace) {
      if (grace.isNegative()) {
        throw new IllegalArgumentException("stopGrace must not be negative, but was " + grace);
      }
      this.stopGrace = grace;
      return this;
    }

    /**
     * Starts the process and waits until every readiness condition has held (with none, returns
     * once it is started).
     *
     * @throws UncheckedIOException if the program cannot be started (missing, not executable)
     * @throws IllegalStateException if it exits before it is ready or is not ready in time, with
     *     the tail of its log; it has been killed then
     */
    public ServerProcess start() {
      ProcessBuilder builder = new ProcessBuilder(command);
      if (directory != null) {
        builder.directory(directory.toFile());
      }
      builder.environment().keySet().removeIf(removed);
      builder.environment().putAll(environment);
      ServerProcess process = ServerProcess.start(builder, name, logFile(), stopGrace);
      long deadline = System.nanoTime() + readyWithin.toNanos();
      try {
        for (Readiness ready : readiness) {
          process.await(ready.what(), ready.probe().apply(process), deadline, readyWithin);
        }
        return process;
      } catch (RuntimeException | Error e) {
        process.kill();
        throw e;
      }
    }

    private Path logFile() {
      if (log != null) {
        return log;
      }
      try {
        return Files.createTempFile(name.replaceAll("[^A-Za-z0-9_.-]", "_") + "-", ".log");
      } catch (IOException e) {
        throw new UncheckedIOException("could not create a log file for " + name, e);
      }
    }

    private static boolean listening(int port) {
      try (Socket socket = new Socket()) {
        socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 500);
        return true;
      } catch (IOException e) {
        return false;
      }
    }
  }
}
