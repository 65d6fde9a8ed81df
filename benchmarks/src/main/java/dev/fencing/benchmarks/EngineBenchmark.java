package dev.fencing.benchmarks;

import dev.fencing.testkit.db.PostgresFixture;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;

/**
 * The two queue engines of {@code fencing-postgres} (update in place, append-only; docs/ENGINE.md)
 * side by side in one run, through {@code FencedWorkers} set up as {@link LoadBenchmark} sets it
 * up, in the shape of hardbyte/postgresql-job-queue-benchmarking: a producer keeping 4,000 jobs not
 * yet claimed, 1 ms jobs, 4/16/64/128 workers (handler threads), a warm-up left out and the median
 * of the clean phase's 5 s windows; then 800 jobs/s offered from a cold start, the claim latency of
 * every window and of the whole run. Each run is a {@link LoadRun} in a fresh JVM on a fresh
 * schema; the engines alternate at each point (and which goes first alternates too). Both engines
 * get the same producer: plain {@code enqueueAll} batches, since the append-only engine has no
 * keyed enqueue yet.
 *
 * <p>Prints a Markdown section; {@code --out FILE} also writes it alone, {@code --doc FILE} puts it
 * into FILE in place of the section of the same title (or at its end). {@code --quick} is the smoke
 * form (4 workers, 1 s windows, 1 s warm-up, 2 s measured, depth 500, 200 jobs/s); its numbers mean
 * nothing. Nothing here asserts a time.
 *
 * <p>{@code --baseline JAR} adds today's engine: the update-in-place engine as an earlier build of
 * this module (its {@code benchmarks.jar}) runs it, each point in the same run as this build's two
 * engines, with the CPU time each run's JVM and the database's backends spent; the section is then
 * {@link HarnessReport}'s.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar dev.fencing.benchmarks.EngineBenchmark [--quick]
 *   [--warmup S] [--seconds S] [--rate-seconds S] [--workers 4,16,64,128] [--depth D] [--rate R]
 *   [--only depth|rate] [--baseline EARLIER-BENCHMARKS-JAR] [--out FILE] [--doc FILE]
 * </pre>
 */
public final class EngineBenchmark {

  static final String TITLE = EngineReport.TITLE;

  private static final String[] ENGINES = {"update", "append"};

  /** With {@code --baseline}: today's engine (update in place, from the earlier jar) first. */
  private static final String[] WITH_BASELINE = {"today", "update", "append"};

  private EngineBenchmark() {}

  /** Runs the comparison; see the class comment for the arguments. */
  public static void main(String[] args) throws Exception {
    long begin = System.nanoTime();
    boolean quick = List.of(args).contains("--quick");
    int window = quick ? 1 : 5;
    int warmup = Args.intArg(args, "--warmup", quick ? 1 : 20);
    int seconds = Args.intArg(args, "--seconds", quick ? 2 : 90);
    int rateSeconds = Args.intArg(args, "--rate-seconds", quick ? 2 : 90);
    int depth = Args.intArg(args, "--depth", quick ? 500 : 4_000);
    int rate = Args.intArg(args, "--rate", quick ? 200 : 800);
    String only = Args.stringArg(args, "--only", "");
    List<Integer> workers = workers(Args.stringArg(args, "--workers", quick ? "4" : "4,16,64,128"));
    String baselineArg = Args.stringArg(args, "--baseline", "");
    Path baseline = baselineArg.isEmpty() ? null : Path.of(baselineArg);
    String[] engines = baseline == null ? ENGINES : WITH_BASELINE;

    PostgresFixture.Database db = BenchDatabase.database();
    Points points = new Points(engines, baseline, db);
    List<String> common = new ArrayList<>(LoadBenchmark.childArgs(db, window));
    common.add("--harness");
    List<EngineResult[]> depthRows = new ArrayList<>();
    if (only.isEmpty() || only.equals("depth")) {
      for (int i = 0; i < workers.size(); i++) {
        int n = workers.get(i);
        List<String> shape =
            List.of(
                "--shape",
                "depth",
                "--depth",
                Integer.toString(depth),
                "--threads",
                Integer.toString(n),
                "--seconds",
                Integer.toString(warmup + seconds),
                "--warmup",
                Integer.toString(warmup));
        depthRows.add(points.run(common, shape, "depth, " + n + " workers", i));
      }
    }
    EngineResult[] rateRow = null;
    if (only.isEmpty() || only.equals("rate")) {
      List<String> shape =
          List.of(
              "--shape",
              "rate",
              "--rate",
              Integer.toString(rate),
              "--threads",
              "32",
              "--seconds",
              Integer.toString(rateSeconds),
              "--warmup",
              "0");
      rateRow = points.run(common, shape, "rate " + rate + "/s, cold", 0);
    }
    EngineReport.Settings settings =
        new EngineReport.Settings(
            String.join(" ", args),
            LocalDate.now(ZoneOffset.UTC),
            BenchDatabase.machine(db.dataSource()).strip(),
            cpuModel(),
            window,
            warmup,
            seconds,
            rateSeconds,
            depth,
            rate,
            (System.nanoTime() - begin) / 60e9);
    String section =
        baseline == null
            ? EngineReport.section(settings, workers, depthRows, rateRow)
            : HarnessReport.section(settings, workers, depthRows, rateRow);
    Args.report(section, args);
  }

  /** The engines of one benchmark run, and how each point runs them. */
  private record Points(String[] engines, Path baseline, PostgresFixture.Database db) {

    /**
     * Runs every engine at one point, each on a fresh schema in a fresh JVM, in the order of {@code
     * engines} turned by {@code turn} places (so that which goes first changes from point to
     * point); returns the results in the order of {@code engines}.
     */
    EngineResult[] run(List<String> common, List<String> shape, String label, int turn) {
      EngineResult[] results = new EngineResult[engines.length];
      for (int k = 0; k < engines.length; k++) {
        int e = (k + turn) % engines.length;
        String engine = engines[e];
        boolean today = engine.equals("today");
        List<String> args = new ArrayList<>(common);
        args.addAll(shape);
        args.addAll(
            List.of(
                "--engine",
                today ? "update" : engine,
                "--fresh",
                "--schema",
                "bench_engine_" + engine));
        EngineChild.Ran ran =
            EngineChild.run(label + ", " + engine, args, db.dataSource(), today ? baseline : null);
        results[e] = EngineResult.of(engine, ran.lines(), ran.cpu());
      }
      return results;
    }
  }

  /**
   * Parses {@code --workers}: worker counts separated by commas.
   *
   * @throws IllegalArgumentException naming the value when a count is not a positive integer
   */
  static List<Integer> workers(String list) {
    List<Integer> counts = new ArrayList<>();
    for (String part : list.split(",")) {
      int n;
      try {
        n = Integer.parseInt(part.strip());
      } catch (NumberFormatException e) {
        n = 0;
      }
      if (n < 1) {
        throw new IllegalArgumentException(
            "--workers must be positive integers separated by commas, but was '" + list + "'");
      }
      counts.add(n);
    }
    return counts;
  }

  /** The CPU's model name from /proc/cpuinfo, or "unknown CPU" where there is none. */
  static String cpuModel() {
    try {
      return Files.readAllLines(Path.of("/proc/cpuinfo")).stream()
          .filter(l -> l.startsWith("model name"))
          .map(l -> l.substring(l.indexOf(':') + 1).strip())
          .findFirst()
          .orElse("unknown CPU");
    } catch (IOException e) {
      return "unknown CPU";
    }
  }
}
