package dev.fencing.demo;

import dev.fencing.testkit.db.PostgresFixture;
import dev.fencing.testkit.process.Signals;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One incarnation of a {@link ChaosWorkerMain} process, driven from the test with real signals. A
 * worker killed and started again is a new incarnation with the same name and owner, and its own
 * log file.
 */
final class ChaosWorker implements AutoCloseable {

  /** How a chaos worker is configured. */
  record Config(
      PostgresFixture.Database database,
      String schema,
      String queue,
      Path logDirectory,
      Duration lease,
      int concurrency,
      int batchSize,
      Duration drainTimeout,
      String variant) {}

  private final String name;
  private final String owner;
  private final int incarnation;
  private final Path log;
  private final Process process;
  private final Writer stdin;
  private final BufferedReader stdout;
  private volatile boolean killed;

  private ChaosWorker(String name, String owner, int incarnation, Path log, Process process) {
    this.name = name;
    this.owner = owner;
    this.incarnation = incarnation;
    this.log = log;
    this.process = process;
    this.stdin = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
    this.stdout =
        new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
  }

  /**
   * Starts a worker JVM on this JVM's class path and waits until its runtime runs.
   *
   * @throws IllegalStateException if it does not print {@code ready} within a minute
   */
  static ChaosWorker start(Config c, String name, String owner, int incarnation) {
    Path log = c.logDirectory().resolve(name + "." + incarnation + ".log");
    Path stderr = c.logDirectory().resolve(name + "." + incarnation + ".err");
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(
        List.of(
            "-XX:+UseSerialGC",
            "-XX:TieredStopAtLevel=1",
            "-Xss512k",
            "-Xmx256m",
            "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
            "-Dorg.slf4j.simpleLogger.log.com.zaxxer.hikari=error",
            "-cp",
            System.getProperty("java.class.path"),
            ChaosWorkerMain.class.getName(),
            c.database().jdbcUrl(),
            c.database().user(),
            c.database().password(),
            c.schema(),
            c.queue(),
            owner,
            name,
            log.toString(),
            Long.toString(c.lease().toMillis()),
            Integer.toString(c.concurrency()),
            Integer.toString(c.batchSize()),
            Long.toString(c.drainTimeout().toMillis()),
            c.variant()));
    Process process;
    try {
      process =
          new ProcessBuilder(command)
              .redirectError(ProcessBuilder.Redirect.to(stderr.toFile()))
              .start();
    } catch (IOException e) {
      throw new UncheckedIOException("could not start worker " + name, e);
    }
    ChaosWorker worker = new ChaosWorker(name, owner, incarnation, log, process);
    String first = worker.readLine(Duration.ofMinutes(1));
    if (!"ready".equals(first)) {
      worker.close();
      throw new IllegalStateException(
          "worker " + name + " did not start (" + first + "); stderr: " + tail(stderr));
    }
    return worker;
  }

  String name() {
    return name;
  }

  String owner() {
    return owner;
  }

  int incarnation() {
    return incarnation;
  }

  Path log() {
    return log;
  }

  long pid() {
    return process.pid();
  }

  boolean isAlive() {
    return process.isAlive();
  }

  /** Whether the test killed this incarnation (so its log may end in a partial line). */
  boolean killed() {
    return killed;
  }

  /** {@code SIGKILL}, as a crash would; waits for the process to end. */
  void kill() {
    killed = true;
    Signals.send(pid(), "KILL", "worker " + name);
    await(Duration.ofSeconds(10));
  }

  /** {@code SIGSTOP}; returns once the kernel reports the process stopped. */
  void freeze() {
    Signals.send(pid(), "STOP", "worker " + name);
  }

  /** {@code SIGCONT}. */
  void thaw() {
    Signals.send(pid(), "CONT", "worker " + name);
  }

  /** Asks the worker to stop: its runtime's shutdown runs, then it exits. */
  void requestStop() {
    try {
      stdin.write("stop\n");
      stdin.flush();
    } catch (IOException e) {
      // it is gone already; await() tells
    }
  }

  /** Waits for the process to end; returns its exit code, or empty if it is still running. */
  java.util.OptionalInt await(Duration timeout) {
    try {
      if (process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        return java.util.OptionalInt.of(process.exitValue());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return java.util.OptionalInt.empty();
  }

  /** Ends the process if it still runs ({@code SIGKILL} ends a frozen process too). */
  @Override
  public void close() {
    if (process.isAlive()) {
      killed = true;
      process.destroyForcibly();
      await(Duration.ofSeconds(10));
    }
  }

  private String readLine(Duration timeout) {
    Thread watchdog =
        Thread.ofPlatform()
            .daemon()
            .start(
                () -> {
                  try {
                    Thread.sleep(timeout);
                    process.destroyForcibly();
                  } catch (InterruptedException e) {
                    // the line came in time
                  }
                });
    try {
      return stdout.readLine();
    } catch (IOException e) {
      return "error: " + e;
    } finally {
      watchdog.interrupt();
    }
  }

  private static String tail(Path file) {
    try {
      String text = Files.readString(file);
      return text.length() > 4_000 ? text.substring(text.length() - 4_000) : text;
    } catch (IOException e) {
      return "(unreadable: " + e + ")";
    }
  }
}
