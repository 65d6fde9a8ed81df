package dev.fencing.benchmarks;

import dev.fencing.testkit.db.PostgresFixture;
import dev.fencing.testkit.process.JavaProcess;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * {@code FencedWorkers} under a steady load from its first second, as the README sets it up (32
 * handler threads, batch 100, a prefetch of four batches, a 30 s lease with heartbeats,
 * LISTEN/NOTIFY, maintenance every minute (its rounds then run every 10 s, the pace of its VACUUM),
 * a HikariCP pool of 10, keyed batched enqueues from a producer thread in the same JVM, 1 ms jobs).
 * Every run is a JVM of its own ({@link LoadRun}), printing one line per 5 s window so that a knee
 * shows:
 *
 * <ul>
 *   <li>{@code rate}: a fixed offered rate (800 jobs/s); claim latency (enqueue to handler start)
 *       p50/p99 per window, completions, and the backlog;
 *   <li>{@code depth}: a producer that keeps 4,000 jobs waiting; completions per window;
 *   <li>{@code cold}: on a fresh schema; {@code warm}: on the table the previous run left, in a
 *       fresh JVM (a deploy);
 *   <li>{@code threads}: the depth run at 4, 16, 64 and 128 handler threads, each on a fresh
 *       schema.
 * </ul>
 *
 * <p>Prints a Markdown section; {@code --out FILE} also writes it. {@code --quick} is the smoke
 * form (the fixed rate only, cold and warm, 4 threads, 1 s windows); its numbers mean nothing.
 * Nothing here asserts a time. {@code --maintenance-seconds} asks for another maintenance pace than
 * the README's minute; {@code --init-sql} runs a statement on every pooled connection (e.g. {@code
 * set plan_cache_mode = force_generic_plan}, to show what a cached generic plan did).
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar dev.fencing.benchmarks.LoadBenchmark [--quick]
 *   [--seconds S] [--rate R] [--depth D] [--only rate|depth|threads] [--out FILE]
 *   [--maintenance-seconds S] [--init-sql SQL]
 * </pre>
 */
public final class LoadBenchmark {

  static final String TITLE =
      "## Steady load from the first second: fixed rate, full load, threads";

  private LoadBenchmark() {}

  /** One run: its label, and the arguments of its JVM. */
  private record Run(String label, List<String> args) {}

  /** Runs the benchmark; see the class comment for the arguments. */
  public static void main(String[] args) throws Exception {
    boolean quick = List.of(args).contains("--quick");
    int seconds = Args.intArg(args, "--seconds", quick ? 3 : 90);
    int window = quick ? 1 : 5;
    int rate = Args.intArg(args, "--rate", quick ? 200 : 800);
    int depth = Args.intArg(args, "--depth", quick ? 500 : 4_000);
    int scalingSeconds = Args.intArg(args, "--scaling-seconds", quick ? 3 : 60);
    String only = Args.stringArg(args, "--only", quick ? "rate" : "");
    String threads = quick ? "4" : "32";
    String out = Args.stringArg(args, "--out", null);

    PostgresFixture.Database db = BenchDatabase.database();
    List<String> common = new ArrayList<>();
    for (String passed : List.of("--init-sql", "--maintenance-seconds")) {
      String value = Args.stringArg(args, passed, null);
      if (value != null) {
        common.addAll(List.of(passed, value));
      }
    }
    common.addAll(childArgs(db, window));
    List<Run> runs = new ArrayList<>();
    if (only.isEmpty() || only.equals("rate")) {
      List<String> shape = List.of("--shape", "rate", "--rate", Integer.toString(rate));
      runs.add(run("rate, cold", common, shape, "--fresh", threads, seconds, "bench_load_rate"));
      runs.add(run("rate, warm", common, shape, "--warm", threads, seconds, "bench_load_rate"));
    }
    if (only.isEmpty() || only.equals("depth")) {
      List<String> shape = List.of("--shape", "depth", "--depth", Integer.toString(depth));
      runs.add(run("depth, cold", common, shape, "--fresh", threads, seconds, "bench_load_depth"));
      runs.add(run("depth, warm", common, shape, "--warm", threads, seconds, "bench_load_depth"));
    }
    if (only.isEmpty() || only.equals("threads")) {
      List<String> shape = List.of("--shape", "depth", "--depth", Integer.toString(depth));
      for (int n : new int[] {4, 16, 64, 128}) {
        runs.add(
            run(
                "depth, " + n + " threads",
                common,
                shape,
                "--fresh",
                Integer.toString(n),
                scalingSeconds,
                "bench_load_threads"));
      }
    }

    StringBuilder report = new StringBuilder();
    report.append(TITLE).append("\n\n");
    report.append(
        String.format(
            Locale.ROOT,
            "`java -cp benchmarks/target/benchmarks.jar dev.fencing.benchmarks.LoadBenchmark%s`;"
                + " PostgreSQL: %s. Each run is a fresh JVM; windows of %d s from the runtime's"
                + " start.%n%n",
            quick ? " --quick" : "",
            db.source(),
            window));
    List<String> summaries = new ArrayList<>();
    for (Run r : runs) {
      List<String> lines = runChild(r.label(), r.args());
      report.append("### ").append(r.label()).append("\n\n");
      for (String line : lines) {
        if (line.startsWith("Every")) {
          report.append('\n').append(line).append('\n');
        } else if (line.startsWith("Machine")) {
          report.append(line).append("\n\n");
        } else if (line.startsWith("|")) {
          report.append(line).append('\n');
        } else if (line.startsWith("summary|")) {
          summaries.add("| " + r.label() + " " + line.substring("summary".length()));
        }
      }
      report.append('\n');
    }
    report.append("### Summary\n\n");
    report.append(LoadRun.SUMMARY_HEADER).append('\n');
    report.append(LoadRun.SUMMARY_RULE).append('\n');
    for (String s : summaries) {
      report.append(s).append('\n');
    }
    Args.printAndWrite(report.toString(), out);
  }

  private static Run run(
      String label,
      List<String> common,
      List<String> shape,
      String start,
      String threads,
      int seconds,
      String schema) {
    List<String> args = new ArrayList<>(common);
    args.addAll(shape);
    args.addAll(
        List.of(
            start,
            "--threads",
            threads,
            "--seconds",
            Integer.toString(seconds),
            "--schema",
            schema));
    return new Run(label, args);
  }

  /** The arguments of every {@link LoadRun}: where its database is, and its window. */
  static List<String> childArgs(PostgresFixture.Database db, int window) {
    return List.of(
        "--url",
        db.jdbcUrl(),
        "--user",
        db.user(),
        "--password",
        db.password(),
        "--window",
        Integer.toString(window));
  }

  /** Runs one {@link LoadRun} in a JVM of its own and returns its output lines. */
  static List<String> runChild(String label, List<String> args) {
    System.err.println("load run: " + label + " " + args);
    // JavaProcess starts small test JVMs (C1 only, serial GC): this one runs as a service would
    try (JavaProcess child =
        JavaProcess.start("load", WorkerProcesses.SERVICE_JVM, LoadRun.class, args)) {
      int code = child.awaitExit(Duration.ofMinutes(10));
      List<String> lines = child.lines();
      for (String line : lines) {
        System.err.println("  " + line);
      }
      if (code != 0) {
        throw new IllegalStateException(
            "load run '" + label + "' exited with " + code + ": " + child.stderr());
      }
      return lines;
    }
  }
}
