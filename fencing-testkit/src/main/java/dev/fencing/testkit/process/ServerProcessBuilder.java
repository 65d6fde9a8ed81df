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
import java.util.function.Function;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * How to start a {@link ServerProcess}: the command, where it runs, its environment, its log, when
 * it counts as ready and how long it may take. Every setting is optional but the command.
 */
public final class ServerProcessBuilder {

  /** A condition of readiness; its probe may look at the process started. */
  private record Readiness(String what, Function<ServerProcess, ServerProcess.Probe> probe) {}

  private final List<String> command;
  private String name;
  private @Nullable Path directory;
  private final Map<String, String> environment = new LinkedHashMap<>();
  private Predicate<String> removed = variable -> false;
  private @Nullable Path log;
  private final List<Readiness> readiness = new ArrayList<>();
  private Duration readyWithin = Duration.ofSeconds(30);
  private Duration stopGrace = Duration.ofSeconds(5);

  ServerProcessBuilder(List<String> command) {
    if (command.isEmpty()) {
      throw new IllegalArgumentException("command must name a program, but was empty");
    }
    this.command = List.copyOf(command);
    this.name = Path.of(command.getFirst()).getFileName().toString();
  }

  /** Sets what messages call the process; the program's file name by default. */
  public ServerProcessBuilder name(String name) {
    this.name = name;
    return this;
  }

  /** Sets the working directory; this JVM's by default. */
  public ServerProcessBuilder directory(Path directory) {
    this.directory = directory;
    return this;
  }

  /** Sets an environment variable of the process; it inherits this JVM's others. */
  public ServerProcessBuilder environment(String variable, String value) {
    environment.put(variable, value);
    return this;
  }

  /**
   * Leaves out of the inherited environment every variable whose name {@code matches} (those set
   * with {@link #environment(String, String)} stay).
   */
  public ServerProcessBuilder withoutEnvironment(Predicate<String> matches) {
    removed = removed.or(matches);
    return this;
  }

  /**
   * Sets the file its standard output and error are appended to (its directory is created); a new
   * temporary file by default. Readiness by log line looks only at what this process writes.
   */
  public ServerProcessBuilder log(Path log) {
    this.log = log;
    return this;
  }

  /** Makes it ready once a connection to {@code port} on the loopback address succeeds. */
  public ServerProcessBuilder readyWhenListening(int port) {
    return ready("a listener on port " + port, started -> () -> listening(port));
  }

  /** Makes it ready once it has logged a line that contains {@code text}. */
  public ServerProcessBuilder readyWhenLogShows(String text) {
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
  public ServerProcessBuilder readyWhen(String what, ServerProcess.Probe probe) {
    return ready(what, started -> probe);
  }

  private ServerProcessBuilder ready(
      String what, Function<ServerProcess, ServerProcess.Probe> probe) {
    readiness.add(new Readiness(what, probe));
    return this;
  }

  /**
   * Sets how long {@link #start()} waits for readiness before it kills the process and fails: 30 s
   * by default.
   *
   * @throws IllegalArgumentException unless positive
   */
  public ServerProcessBuilder readyWithin(Duration within) {
    if (within.isNegative() || within.isZero()) {
      throw new IllegalArgumentException("readyWithin must be positive, but was " + within);
    }
    this.readyWithin = within;
    return this;
  }

  /**
   * Sets how long {@link ServerProcess#stop()} waits after {@code SIGTERM} before {@code SIGKILL}:
   * 5 s by default.
   *
   * @throws IllegalArgumentException if negative
   */
  public ServerProcessBuilder stopGrace(Duration grace) {
    if (grace.isNegative()) {
      throw new IllegalArgumentException("stopGrace must not be negative, but was " + grace);
    }
    this.stopGrace = grace;
    return this;
  }

  /**
   * Starts the process and waits until every readiness condition has held (with none, returns once
   * it is started).
   *
   * @throws UncheckedIOException if the program cannot be started (missing, not executable)
   * @throws IllegalStateException if it exits before it is ready or is not ready in time, with the
   *     tail of its log; it has been killed then
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
