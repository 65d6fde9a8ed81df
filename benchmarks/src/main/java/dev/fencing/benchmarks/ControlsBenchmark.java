package dev.fencing.benchmarks;

import dev.fencing.testkit.db.PostgresFixture;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What queue controls (issue 36) cost on the claim path, in one run: each engine at 16 and 64
 * handler threads, through {@link LoadRun}'s harness shape (a producer keeping 4,000 jobs not yet
 * claimed, 1 ms jobs), in three variants that alternate within every round:
 *
 * <ul>
 *   <li>{@code today}: an earlier build of this module ({@code --baseline}: its {@code
 *       benchmarks.jar}), from before the controls, on its own schema version;
 *   <li>{@code plain}: this build, no job options (the path every existing user keeps);
 *   <li>{@code priorities}: this build, every batch enqueued at one of three priorities (-5, 0, 5),
 *       so two thirds of the jobs wait in priority lanes.
 * </ul>
 *
 * <p>Each run is a fresh JVM on a fresh schema; the order of the variants turns from point to point
 * and round to round. Reports medians over the rounds of completed jobs/s (each run's median
 * window) and claim p99, and the median of each round's ratio to {@code today}. Nothing here
 * asserts a time.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar dev.fencing.benchmarks.ControlsBenchmark
 *   --baseline EARLIER-BENCHMARKS-JAR [--rounds 3] [--warmup S] [--seconds S]
 *   [--workers 16,64] [--engines update,append] [--quick] [--out FILE] [--doc FILE]
 * </pre>
 */
public final class ControlsBenchmark {

  static final String TITLE = "Queue controls: what they cost on the claim path (issue 36)";

  private static final List<String> VARIANTS = List.of("today", "plain", "priorities");

  private ControlsBenchmark() {}

  /** Runs the comparison; see the class comment for the arguments. */
  public static void main(String[] args) throws Exception {
    long begin = System.nanoTime();
    boolean quick = List.of(args).contains("--quick");
    int window = quick ? 1 : 5;
    int warmup = Args.intArg(args, "--warmup", quick ? 1 : 10);
    int seconds = Args.intArg(args, "--seconds", quick ? 2 : 30);
    int rounds = Args.intArg(args, "--rounds", quick ? 1 : 3);
    List<Integer> workers =
        EngineBenchmark.workers(Args.stringArg(args, "--workers", quick ? "4" : "16,64"));
    List<String> engines = List.of(Args.stringArg(args, "--engines", "update,append").split(","));
    String baselineArg = Args.stringArg(args, "--baseline", "");
    if (baselineArg.isEmpty()) {
      throw new IllegalArgumentException(
          "--baseline must name the benchmarks.jar of a build from before the controls"
              + " (docs/BENCHMARKS.md says how to build it)");
    }
    Path baseline = Path.of(baselineArg);
    PostgresFixture.Database db = BenchDatabase.database();
    List<String> common = new ArrayList<>(LoadBenchmark.childArgs(db, window));
    common.add("--harness");
    Map<String, List<EngineResult>> results = new LinkedHashMap<>();
    int turn = 0;
    for (int round = 1; round <= rounds; round++) {
      for (int n : workers) {
        for (String engine : engines) {
          for (int k = 0; k < VARIANTS.size(); k++) {
            String variant = VARIANTS.get((k + turn) % VARIANTS.size());
            List<String> run = new ArrayList<>(common);
            run.addAll(
                List.of(
                    "--shape",
                    "depth",
                    "--depth",
                    "4000",
                    "--threads",
                    Integer.toString(n),
                    "--seconds",
                    Integer.toString(warmup + seconds),
                    "--warmup",
                    Integer.toString(warmup),
                    "--engine",
                    engine,
                    "--fresh",
                    "--schema",
                    "bench_controls_" + variant));
            if (variant.equals("priorities")) {
              run.addAll(List.of("--priorities", "3"));
            }
            String label = "round " + round + ", " + n + " workers, " + engine + ", " + variant;
            EngineChild.Ran ran =
                EngineChild.run(
                    label, run, db.dataSource(), variant.equals("today") ? baseline : null);
            results
                .computeIfAbsent(key(n, engine, variant), x -> new ArrayList<>())
                .add(EngineResult.of(variant, ran.lines(), ran.cpu()));
          }
          turn++;
        }
      }
    }
    StringBuilder out = new StringBuilder("## ").append(TITLE).append("\n\n");
    out.append(
        String.format(
            Locale.ROOT,
            "Run %s; %s (%s); `ControlsBenchmark %s`; %d rounds, each run %d s warm-up then"
                + " %d s measured in %d s windows; %.0f min in all.%n%n",
            LocalDate.now(ZoneOffset.UTC),
            BenchDatabase.machine(db.dataSource()).strip(),
            EngineBenchmark.cpuModel(),
            String.join(" ", args),
            rounds,
            warmup,
            seconds,
            window,
            (System.nanoTime() - begin) / 60e9));
    out.append(
        "| threads | engine | variant | jobs/s (median of rounds) | vs today (median ratio)"
            + " | claim p99 ms (median) | p99 vs today |\n");
    out.append("|---:|---|---|---:|---:|---:|---:|\n");
    for (int n : workers) {
      for (String engine : engines) {
        List<EngineResult> today = results.get(key(n, engine, "today"));
        for (String variant : VARIANTS) {
          List<EngineResult> runs = results.get(key(n, engine, variant));
          List<Double> ratios = new ArrayList<>();
          List<Double> p99Ratios = new ArrayList<>();
          for (int i = 0; i < runs.size(); i++) {
            ratios.add(runs.get(i).jobsPerSecond() / today.get(i).jobsPerSecond());
            p99Ratios.add(p99(runs.get(i)) / p99(today.get(i)));
          }
          out.append(
              String.format(
                  Locale.ROOT,
                  "| %d | %s | %s | %,.0f | %.2f | %.1f | %.2f |%n",
                  n,
                  engine,
                  variant,
                  median(runs.stream().map(EngineResult::jobsPerSecond).toList()),
                  median(ratios),
                  median(runs.stream().map(ControlsBenchmark::p99).toList()),
                  median(p99Ratios)));
        }
      }
    }
    Args.report(out.toString(), args);
  }

  private static String key(int workers, String engine, String variant) {
    return workers + "/" + engine + "/" + variant;
  }

  private static double p99(EngineResult result) {
    return Double.parseDouble(result.claimP99());
  }

  static double median(List<Double> values) {
    List<Double> sorted = values.stream().sorted().toList();
    int n = sorted.size();
    return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
  }
}
