package dev.fencing.benchmarks;

import dev.fencing.testkit.process.JavaProcess;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The worker JVMs of one benchmark row ({@link JavaProcess}es, so later rows start from the class
 * archive the first one wrote), each a main class that prints {@code ready}, starts on the line
 * {@code go}, and prints its results as lines the row waits for. {@code FENCING_WORKER_JVM_ARGS}
 * (e.g. a profiler's agent) is added to every worker's options. Closing ends every worker.
 */
final class WorkerProcesses implements AutoCloseable {

  /**
   * Options that make a worker run as a service would, not as {@link JavaProcess}'s small test JVM:
   * C2, G1, a 1 GB heap.
   */
  static final List<String> SERVICE_JVM =
      List.of("-XX:TieredStopAtLevel=4", "-XX:-UseSerialGC", "-XX:+UseG1GC", "-Xmx1g");

  private static final Duration PATIENCE = Duration.ofMinutes(5);

  private final List<JavaProcess> started = new ArrayList<>();
  private final List<Integer> read = new ArrayList<>();

  /**
   * Starts {@code main} with {@code args} in a new JVM with {@code jvmOptions} after {@link
   * JavaProcess}'s own (serial GC, C1 only, 256 MB heap).
   */
  void start(Class<?> main, List<String> jvmOptions, List<String> args) {
    List<String> options = new ArrayList<>(jvmOptions);
    String agent = System.getenv("FENCING_WORKER_JVM_ARGS");
    if (agent != null && !agent.isBlank()) {
      options.addAll(List.of(agent.trim().split("\\s+")));
    }
    options.add("-Dorg.slf4j.simpleLogger.defaultLogLevel=warn");
    started.add(JavaProcess.start("worker" + started.size(), options, main, args));
    read.add(0);
  }

  /** Waits until every worker printed {@code ready}, then tells each to go. */
  void go() {
    await("ready");
    for (JavaProcess worker : started) {
      worker.send("go");
    }
  }

  /**
   * Returns each worker's next line starting with {@code prefix}, in the order they were started.
   *
   * @throws IllegalStateException if a worker ended before printing one, with its error output
   */
  List<String> await(String prefix) {
    List<String> lines = new ArrayList<>();
    for (int i = 0; i < started.size(); i++) {
      JavaProcess worker = started.get(i);
      int at = worker.await(read.get(i), line -> line.startsWith(prefix), PATIENCE);
      read.set(i, at + 1);
      lines.add(worker.lines().get(at));
    }
    return lines;
  }

  /**
   * The worker's side: prints {@code ready} and waits for the line {@code go}; returns false if
   * standard input said anything else or ended.
   */
  static boolean readyForGo() throws IOException {
    BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    System.out.println("ready");
    System.out.flush();
    return "go".equals(in.readLine());
  }

  @Override
  public void close() {
    started.forEach(JavaProcess::close);
  }
}
