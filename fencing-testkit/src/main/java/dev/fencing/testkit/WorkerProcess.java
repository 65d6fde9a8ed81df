package dev.fencing.testkit;

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
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A real second JVM running {@link PuppetWorker}, driven line by line. Stalls and crashes are real
 * signals: {@link #freeze()} sends {@code SIGSTOP}, {@link #thaw()} {@code SIGCONT}, {@link
 * #crash()} {@code SIGKILL}. Closing it kills the process, so none outlives its test.
 */
public final class WorkerProcess implements AutoCloseable {

  /** How long a reply may take before the worker is reported as hung. */
  public static final Duration REPLY_TIMEOUT = Duration.ofSeconds(60);

  private static final String EOF = "\u0000eof";

  /** Every worker still running, killed when this JVM exits so that none is left behind. */
  private static final java.util.Set<Process> LIVE =
      java.util.concurrent.ConcurrentHashMap.newKeySet();

  static {
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(() -> LIVE.forEach(Process::destroyForcibly), "worker-process-reaper"));
  }

  private final String name;
  private final Process process;
  private final Writer stdin;
  private final BlockingQueue<String> replies = new LinkedBlockingQueue<>();
  private final StringBuffer stderr = new StringBuffer();

  private WorkerProcess(String name, Process process) {
    this.name = name;
    this.process = process;
    this.stdin = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
    pump(process.getInputStream(), line -> replies.add(line), () -> replies.add(EOF));
    pump(process.getErrorStream(), this::keepError, () -> {});
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
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(
        List.of(
            "-XX:+UseSerialGC",
            "-XX:TieredStopAtLevel=1",
            "-Xss512k",
            "-Xmx256m",
            "-Dorg.jooq.no-logo=true",
            "-Dorg.jooq.no-tips=true",
            "-cp",
            System.getProperty("java.class.path"),
            PuppetWorker.class.getName(),
            backend.getName(),
            database.jdbcUrl(),
            database.user(),
            database.password(),
            schema));
    Process process;
    try {
      process = new ProcessBuilder(command).start();
    } catch (IOException e) {
      throw new UncheckedIOException("could not start worker " + name, e);
    }
    LIVE.add(process);
    process.onExit().thenRun(() -> LIVE.remove(process));
    WorkerProcess worker = new WorkerProcess(name, process);
    String ready = worker.awaitReply();
    if (!ready.startsWith("ok ready")) {
      worker.close();
      throw new IllegalStateException(
          "worker " + name + " did not start: " + ready + "; stderr: " + worker.stderr);
    }
    return worker;
  }

  /** Returns the name given at start. */
  public String name() {
    return name;
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
    try {
      stdin.write(command);
      stdin.write('\n');
      stdin.flush();
    } catch (IOException e) {
      throw new IllegalStateException(
          "worker " + name + " (pid " + pid() + ") is gone; stderr: " + stderr, e);
    }
  }

  /**
   * Returns the next reply.
   *
   * @throws IllegalStateException if the worker died or did not answer within {@link
   *     #REPLY_TIMEOUT}
   */
  public String awaitReply() {
    String reply;
    try {
      reply = replies.poll(REPLY_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted waiting for worker " + name, e);
    }
    if (reply == null) {
      throw new IllegalStateException(
          "worker " + name + " (pid " + pid() + ") did not answer within " + REPLY_TIMEOUT);
    }
    if (reply.equals(EOF)) {
      replies.add(EOF);
      throw new IllegalStateException(
          "worker " + name + " (pid " + pid() + ") died; stderr: " + stderr);
    }
    return reply;
  }

  /** Freezes the process with {@code SIGSTOP} and returns once the kernel reports it stopped. */
  public void freeze() {
    signal("STOP");
    awaitState('T', "stopped");
  }

  /** Thaws the process with {@code SIGCONT}. */
  public void thaw() {
    signal("CONT");
  }

  /** Kills the process with {@code SIGKILL}, as a crash would, and waits for it to end. */
  public void crash() {
    signal("KILL");
    try {
      process.waitFor(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Returns whether the process is still running (or frozen). */
  public boolean isAlive() {
    return process.isAlive();
  }

  @Override
  public void close() {
    if (process.isAlive()) {
      process.destroyForcibly();
      try {
        process.waitFor(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private void signal(String signal) {
    try {
      Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid())).start();
      if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
        throw new IllegalStateException(
            "kill -" + signal + " " + pid() + " failed for worker " + name);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("kill -" + signal + " for worker " + name, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted signalling worker " + name, e);
    }
  }

  private void awaitState(char state, String description) {
    Path stat = Path.of("/proc", Long.toString(pid()), "stat");
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (System.nanoTime() < deadline) {
      try {
        String text = Files.readString(stat);
        // the state follows the command name, which is in parentheses
        if (text.charAt(text.lastIndexOf(')') + 2) == state) {
          return;
        }
        Thread.sleep(2);
      } catch (IOException e) {
        return; // no /proc here: the signal was delivered, trust it
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
    throw new IllegalStateException("worker " + name + " was not " + description + " within 10 s");
  }

  private void keepError(String line) {
    if (stderr.length() < 20_000) {
      stderr.append(line).append('\n');
    }
  }

  private void pump(
      java.io.InputStream stream, java.util.function.Consumer<String> lines, Runnable atEnd) {
    Thread thread =
        new Thread(
            () -> {
              try (BufferedReader reader =
                  new BufferedReader(new InputStreamReader(stream, StandardCharsets.UTF_8))) {
                for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                  lines.accept(line);
                }
              } catch (IOException ignored) {
                // the process ended
              } finally {
                atEnd.run();
              }
            },
            "worker-" + name + "-pump");
    thread.setDaemon(true);
    thread.start();
  }
}
