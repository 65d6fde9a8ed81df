package dev.fencing.benchmarks;

import dev.fencing.testkit.process.JavaProcess;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;

/**
 * One {@link LoadRun} of {@link EngineBenchmark} in a JVM of its own, with the CPU time that JVM
 * and the database's backends spent ({@link RunCpu}); run from this build, or from the jar of an
 * earlier build of this module ({@code --baseline}), whose {@code LoadRun} takes the same arguments
 * and prints the same lines.
 */
final class EngineChild {

  private static final long PATIENCE_MINUTES = 10;

  private EngineChild() {}

  /** The output lines and the CPU spent. */
  record Ran(List<String> lines, RunCpu.Spent cpu) {}

  /**
   * Runs {@link LoadRun} with {@code args}, watching the database {@code observed}; from {@code
   * jar} when not null, else from this JVM's class path.
   *
   * @throws IllegalStateException naming {@code label} when the run fails or outlives its patience
   */
  static Ran run(String label, List<String> args, DataSource observed, Path jar) {
    System.err.println("load run: " + label + (jar == null ? "" : " from " + jar) + " " + args);
    try {
      return jar == null
          ? fromThisBuild(label, args, observed)
          : fromJar(label, args, observed, jar);
    } catch (SQLException e) {
      throw new IllegalStateException("watching load run '" + label + "': " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted in load run '" + label + "'", e);
    }
  }

  private static Ran fromThisBuild(String label, List<String> args, DataSource observed)
      throws SQLException, InterruptedException {
    try (JavaProcess child =
            JavaProcess.start("load", WorkerProcesses.SERVICE_JVM, LoadRun.class, args);
        RunCpu cpu = RunCpu.watch(observed, child.pid())) {
      int code = child.awaitExit(java.time.Duration.ofMinutes(PATIENCE_MINUTES));
      RunCpu.Spent spent = cpu.stop();
      List<String> lines = child.lines();
      lines.forEach(l -> System.err.println("  " + l));
      if (code != 0) {
        throw new IllegalStateException(
            "load run '" + label + "' exited with " + code + ": " + child.stderr());
      }
      return new Ran(lines, spent);
    }
  }

  private static Ran fromJar(String label, List<String> args, DataSource observed, Path jar)
      throws SQLException, InterruptedException {
    if (!Files.isRegularFile(jar)) {
      throw new IllegalArgumentException(
          "--baseline must be a benchmarks jar, but was '" + jar + "'");
    }
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(WorkerProcesses.SERVICE_JVM);
    command.addAll(List.of("-cp", jar.toString(), LoadRun.class.getName()));
    command.addAll(args);
    Path stderr;
    Process process;
    try {
      stderr = Files.createTempFile("baseline-load", ".err");
      process = new ProcessBuilder(command).redirectError(stderr.toFile()).start();
    } catch (IOException e) {
      throw new UncheckedIOException("could not start load run '" + label + "'", e);
    }
    try (RunCpu cpu = RunCpu.watch(observed, process.pid())) {
      List<String> lines = new ArrayList<>();
      Thread reader =
          Thread.ofPlatform()
              .daemon()
              .start(
                  () -> {
                    try (BufferedReader in =
                        new BufferedReader(
                            new InputStreamReader(
                                process.getInputStream(), StandardCharsets.UTF_8))) {
                      for (String line; (line = in.readLine()) != null; ) {
                        synchronized (lines) {
                          lines.add(line);
                        }
                      }
                    } catch (IOException e) {
                      // the process ended; what was read is kept
                    }
                  });
      if (!process.waitFor(PATIENCE_MINUTES, TimeUnit.MINUTES)) {
        process.destroyForcibly().waitFor();
        throw new IllegalStateException("load run '" + label + "' outlived its patience");
      }
      RunCpu.Spent spent = cpu.stop();
      reader.join();
      lines.forEach(l -> System.err.println("  " + l));
      if (process.exitValue() != 0) {
        throw new IllegalStateException(
            "load run '" + label + "' exited with " + process.exitValue() + ": " + read(stderr));
      }
      return new Ran(List.copyOf(lines), spent);
    } finally {
      process.destroyForcibly();
      try {
        Files.deleteIfExists(stderr);
      } catch (IOException e) {
        // a temporary file left behind
      }
    }
  }

  private static String read(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      return "(unreadable: " + e + ")";
    }
  }
}
