package dev.fencing.testkit.process;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;

/**
 * A real second JVM running any main class on this JVM's class path (or on another, such as an
 * earlier build's), whose output lines a test waits for. Stalls and crashes are real signals:
 * {@link #freeze()} sends {@code SIGSTOP}, {@link #thaw()} {@code SIGCONT}, {@link #crash()} {@code
 * SIGKILL}. Closing it kills the process, and so does the end of this JVM, so none outlives its
 * test.
 *
 * @since 0.1
 */
public final class JavaProcess extends OwnedProcess implements AutoCloseable {

  private static final int MAX_STDERR = 20_000;

  private final Writer stdin;
  private final List<String> lines = new ArrayList<>();
  private final StringBuffer stderr = new StringBuffer();
  private boolean outputEnded;

  /** Whether its classes are archived when it exits in order ({@link SharedClasses}). */
  private final boolean trainer;

  /** Completes when the process has ended and its archive, if it trained, is in place. */
  private final CompletableFuture<Void> exited;

  private JavaProcess(
      String name, Process process, boolean trainer, CompletableFuture<Void> exited) {
    super(name, process);
    this.trainer = trainer;
    this.exited = exited;
    this.stdin = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
    pump(process.getInputStream(), this::keepLine, this::outputEnded);
    pump(process.getErrorStream(), this::keepError, () -> {});
  }

  /**
   * Starts {@code mainClass} with {@code args} in a new JVM on this JVM's class path.
   *
   * @param name how reports call it
   */
  public static JavaProcess start(String name, Class<?> mainClass, List<String> args) {
    return start(name, List.of(), mainClass, args);
  }

  /**
   * Starts {@code mainClass} with {@code args} in a new JVM on this JVM's class path, a small one
   * (serial GC, 256 MB heap) with {@code jvmOptions} added.
   *
   * @param name how reports call it
   */
  public static JavaProcess start(
      String name, List<String> jvmOptions, Class<?> mainClass, List<String> args) {
    return start(
        name,
        jvmOptions,
        mainClass.getName(),
        args,
        SharedClasses.launch(classPath(mainClass), mainClass.getName()));
  }

  /**
   * Starts {@code mainClass} with {@code args} in a new JVM on {@code classPath} instead of this
   * JVM's, a small one as {@link #start(String, List, Class, List)} starts: for code this JVM does
   * not hold, such as an earlier build of the library, whose classes a test must not load next to
   * its own. The JVM is this one's ({@code java.home}).
   *
   * @param name how reports call it
   * @param classPath the child's whole class path, entries separated by {@link
   *     java.io.File#pathSeparator}
   * @param mainClass the binary name of a class on {@code classPath}
   */
  public static JavaProcess start(
      String name, List<String> jvmOptions, String classPath, String mainClass, List<String> args) {
    return start(name, jvmOptions, mainClass, args, SharedClasses.launch(classPath, mainClass));
  }

  /**
   * Makes the children of {@code mainClass} start faster, once per class path: unless their classes
   * are archived already (or another JVM is archiving them), starts one that takes no part in the
   * test, runs {@code exercise} on it (the commands that load what the real ones will use), and
   * closes it in order, which archives its classes ({@link SharedClasses}). A suite whose children
   * live until it ends, or die by {@code SIGKILL}, calls this before it starts them: else the
   * archive came only when the suite ended.
   *
   * @throws RuntimeException what {@code exercise} threw, after the child was closed
   */
  public static void warmUp(
      String name,
      List<String> jvmOptions,
      Class<?> mainClass,
      List<String> args,
      java.util.function.Consumer<JavaProcess> exercise) {
    SharedClasses.Launch launch = SharedClasses.launch(classPath(mainClass), mainClass.getName());
    if (!launch.trainer()) {
      return;
    }
    try (JavaProcess child = start(name, jvmOptions, mainClass.getName(), args, launch)) {
      exercise.accept(child);
    }
  }

  private static JavaProcess start(
      String name,
      List<String> jvmOptions,
      String mainClass,
      List<String> args,
      SharedClasses.Launch launch) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(List.of("-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xmx256m"));
    command.addAll(launch.options());
    command.addAll(jvmOptions);
    command.addAll(List.of("-cp", launch.classPath(), mainClass));
    command.addAll(args);
    Process process;
    try {
      process = new ProcessBuilder(command).start();
    } catch (IOException e) {
      launch.trainerExited(-1);
      throw new UncheckedIOException("could not start " + name, e);
    }
    killAtExit(process);
    CompletableFuture<Void> exited =
        process.onExit().thenRun(() -> launch.trainerExited(process.exitValue()));
    return new JavaProcess(name, process, launch.trainer(), exited);
  }

  /**
   * This JVM's class path; when this JVM runs on the module path (as surefire runs the tests of a
   * module with a {@code module-info}), its module path and the main class's own location too, all
   * on a plain class path for the child.
   */
  private static String classPath(Class<?> mainClass) {
    String classPath = System.getProperty("java.class.path", "");
    String modulePath = System.getProperty("jdk.module.path");
    if (modulePath == null || modulePath.isEmpty()) {
      return classPath;
    }
    String own;
    try {
      own =
          Path.of(mainClass.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
    } catch (java.net.URISyntaxException e) {
      throw new IllegalStateException("no location for " + mainClass, e);
    }
    return String.join(java.io.File.pathSeparator, own, modulePath, classPath);
  }

  /**
   * Writes {@code line} to its standard input: a frozen process reads it when it is thawed.
   *
   * @throws IllegalStateException if the process is gone
   */
  public void send(String line) {
    try {
      stdin.write(line);
      stdin.write('\n');
      stdin.flush();
    } catch (IOException e) {
      throw new IllegalStateException(
          name() + " (pid " + pid() + ") is gone; stderr: " + stderr, e);
    }
  }

  /** Returns every line it printed so far. */
  public synchronized List<String> lines() {
    return List.copyOf(lines);
  }

  /**
   * Waits for the first line from {@code from} on (0 is the first line printed) that matches, and
   * returns its index.
   *
   * @throws IllegalStateException if none comes within {@code timeout} or the process ends first,
   *     with its last lines and error output
   */
  public synchronized int await(int from, Predicate<String> matches, Duration timeout) {
    Instant deadline = Instant.now().plus(timeout);
    int index = from;
    while (true) {
      for (; index < lines.size(); index++) {
        if (matches.test(lines.get(index))) {
          return index;
        }
      }
      long left = Duration.between(Instant.now(), deadline).toMillis();
      if (left <= 0 || outputEnded) {
        throw new IllegalStateException(
            name()
                + " (pid "
                + pid()
                + (outputEnded ? ") died" : ") printed no such line within " + timeout)
                + "; last lines: "
                + lines.subList(Math.max(0, lines.size() - 10), lines.size())
                + "; stderr: "
                + stderr);
      }
      try {
        wait(Math.min(left, 200));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted waiting for " + name(), e);
      }
    }
  }

  /** Waits for the process to end by itself and returns its exit code. */
  public int awaitExit(Duration timeout) {
    try {
      if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        throw new IllegalStateException(
            name() + " (pid " + pid() + ") did not end within " + timeout + "; stderr: " + stderr);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted waiting for " + name(), e);
    }
    return process.exitValue();
  }

  /** Returns what it wrote to standard error so far. */
  public String stderr() {
    return stderr.toString();
  }

  /** Kills the process with {@code SIGKILL}, as a crash would, and waits for it to end. */
  public void crash() {
    Signals.send(process, "KILL", name());
    close();
  }

  /**
   * Kills the process with {@code SIGKILL} and waits for it to end; the first child of a class path
   * gets {@code SIGTERM} first and up to 30 s to write its class archive ({@link SharedClasses}).
   */
  @Override
  public void close() {
    if (trainer && !frozen() && process.isAlive()) {
      process.destroy();
      try {
        process.waitFor(30, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    process.destroyForcibly();
    try {
      exited.get(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException e) {
      // a process that does not end within 10 s of SIGKILL is the kernel's; nothing to add
    }
  }

  private synchronized void keepLine(String line) {
    lines.add(line);
    notifyAll();
  }

  private void keepError(String line) {
    if (stderr.length() < MAX_STDERR) {
      stderr.append(line).append('\n');
    }
  }

  private synchronized void outputEnded() {
    outputEnded = true;
    notifyAll();
  }

  private void pump(InputStream stream, java.util.function.Consumer<String> sink, Runnable atEnd) {
    Thread pump =
        new Thread(
            () -> {
              try (BufferedReader reader =
                  new BufferedReader(new InputStreamReader(stream, StandardCharsets.UTF_8))) {
                for (String line; (line = reader.readLine()) != null; ) {
                  sink.accept(line);
                }
              } catch (IOException e) {
                // the process is gone
              }
              atEnd.run();
            },
            name() + "-output");
    pump.setDaemon(true);
    pump.start();
  }
}
