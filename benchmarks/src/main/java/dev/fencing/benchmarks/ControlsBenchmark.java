package dev.fencing.benchmarks;

import dev.fencing.QueueLimits;
import dev.fencing.testkit.db.PostgresFixture;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What queue controls (issue 36) cost on the claim path, in one run: each engine at 16 and 64
 * handler threads, through {@link LoadRun}'s harness shape (a producer keeping 4,000 jobs not yet
 * claimed, 1 ms jobs), in variants that alternate within every round:
 *
 * <ul>
 *   <li>{@code today}: an earlier build of this module ({@code --baseline}: its {@code
 *       benchmarks.jar}), from before the controls, on its own schema version;
 *   <li>{@code plain}: this build, no job options (the path every existing user keeps);
 *   <li>{@code priorities}: this build, every batch enqueued at one of three priorities (-5, 0, 5),
 *       so two thirds of the jobs wait in priority lanes;
 *   <li>{@code limit}: this build, no job options, the queue given a running limit of 80 % of the
 *       handler threads ({@link #maxRunning(int)}) before the run; its valid leases are counted
 *       during the run ({@link ValidLeases}) to show the limit held;
 *   <li>{@code high-limit}: as {@code limit}, the limit {@link QueueLimits#MAX_RUNNING}, which the
 *       run never reaches: every claim takes the limit's path (its lock and slots) without being
 *       held back, so it shows what that bookkeeping costs.
 * </ul>
 *
 * <p>Each run is a fresh JVM on a fresh schema; the order of the variants turns from point to point
 * and round to round. Reports medians over the rounds of completed jobs/s (each run's median
 * window) and claim p99, and the median of each round's ratio to {@code plain} (which always runs)
 * and, when it ran, to {@code today}. Nothing here asserts a time.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar dev.fencing.benchmarks.ControlsBenchmark
 *   [--baseline EARLIER-BENCHMARKS-JAR] [--rounds 3] [--warmup S] [--seconds S]
 *   [--workers 16,64] [--engines update,append] [--variants today,plain,priorities,limit,high-limit]
 *   [--quick] [--out FILE] [--doc FILE]
 * </pre>
 *
 * <p>{@code --baseline} is needed when {@code today} runs, as it does by default.
 */
public final class ControlsBenchmark {

  static final String TITLE = "Queue controls: what they cost on the claim path (issue 36)";

  private static final String ALL_VARIANTS = "today,plain,priorities,limit,high-limit";

  private static final Pattern MOST_LEASES =
      Pattern.compile(
          Pattern.quote(ValidLeases.LINE)
              + " at most ([0-9]+) seen \\(limit ([0-9]+)\\),"
              + " in [0-9]+ samples every [0-9]+ ms, ([0-9]+) % of them at the limit");

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
    List<String> variants = variants(Args.stringArg(args, "--variants", ALL_VARIANTS));
    String baselineArg = Args.stringArg(args, "--baseline", "");
    if (baselineArg.isEmpty() && variants.contains("today")) {
      throw new IllegalArgumentException(
          "--baseline must name the benchmarks.jar of a build from before the controls"
              + " (docs/BENCHMARKS.md says how to build it) when the variants include today");
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
          for (int k = 0; k < variants.size(); k++) {
            String variant = variants.get((k + turn) % variants.size());
            List<String> run = new ArrayList<>(common);
            run.addAll(runArgs(n, engine, variant, warmup, seconds));
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
    out.append(table(workers, engines, variants, results));
    Args.report(out.toString(), args);
  }

  /** The arguments of one {@link LoadRun} of {@code variant}, after the common ones. */
  static List<String> runArgs(int n, String engine, String variant, int warmup, int seconds) {
    List<String> run =
        new ArrayList<>(
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
                "bench_controls_" + variant.replace('-', '_')));
    if (variant.equals("priorities")) {
      run.addAll(List.of("--priorities", "3"));
    }
    if (variant.equals("limit")) {
      run.addAll(List.of("--max-running", Integer.toString(maxRunning(n))));
    }
    if (variant.equals("high-limit")) {
      run.addAll(List.of("--max-running", Integer.toString(QueueLimits.MAX_RUNNING)));
    }
    return run;
  }

  /**
   * The results table: per point and variant the medians over the rounds, the median of the round
   * ratios to {@code plain} and, when {@code today} ran, to it; for the variants with a limit, the
   * most valid leases seen against the limit.
   */
  private static String table(
      List<Integer> workers,
      List<String> engines,
      List<String> variants,
      Map<String, List<EngineResult>> results) {
    boolean today = variants.contains("today");
    StringBuilder out =
        new StringBuilder(
            "| threads | engine | variant | jobs/s (median of rounds) | vs plain (median ratio)"
                + " | claim p99 ms (median) | p99 vs plain |"
                + (today ? " vs today | p99 vs today |" : "")
                + " valid leases: most seen (limit); samples at the limit |\n");
    out.append("|---:|---|---|---:|---:|---:|---:|").append(today ? "---:|---:|" : "");
    out.append("---:|\n");
    for (int n : workers) {
      for (String engine : engines) {
        for (String variant : variants) {
          List<EngineResult> runs = results.get(key(n, engine, variant));
          double[] toPlain = ratios(runs, results.get(key(n, engine, "plain")));
          out.append(
              String.format(
                  Locale.ROOT,
                  "| %d | %s | %s | %,.0f | %.2f | %.1f | %.2f |",
                  n,
                  engine,
                  variant,
                  median(runs.stream().map(EngineResult::jobsPerSecond).toList()),
                  toPlain[0],
                  median(runs.stream().map(ControlsBenchmark::p99).toList()),
                  toPlain[1]));
          if (today) {
            double[] toToday = ratios(runs, results.get(key(n, engine, "today")));
            out.append(String.format(Locale.ROOT, " %.2f | %.2f |", toToday[0], toToday[1]));
          }
          out.append(' ').append(variant.endsWith("limit") ? mostLeases(runs) : "–").append(" |\n");
        }
      }
    }
    return out.toString();
  }

  /** The medians of the round ratios of {@code runs} to {@code base}: jobs/s, then claim p99. */
  private static double[] ratios(List<EngineResult> runs, List<EngineResult> base) {
    List<Double> ratios = new ArrayList<>();
    List<Double> p99Ratios = new ArrayList<>();
    for (int i = 0; i < runs.size(); i++) {
      ratios.add(runs.get(i).jobsPerSecond() / base.get(i).jobsPerSecond());
      p99Ratios.add(p99(runs.get(i)) / p99(base.get(i)));
    }
    return new double[] {median(ratios), median(p99Ratios)};
  }

  /**
   * The most valid leases any round saw, with the limit, and the median share of the samples that
   * found the limit full, from {@link ValidLeases}' lines.
   */
  private static String mostLeases(List<EngineResult> runs) {
    long most = -1;
    long limit = -1;
    List<Double> full = new ArrayList<>();
    for (EngineResult run : runs) {
      Matcher m = MOST_LEASES.matcher(run.outcome());
      if (!m.find()) {
        return "not counted";
      }
      most = Math.max(most, Long.parseLong(m.group(1)));
      limit = Long.parseLong(m.group(2));
      full.add(Double.parseDouble(m.group(3)));
    }
    return String.format(Locale.ROOT, "%d (%d); %.0f %%", most, limit, median(full));
  }

  /**
   * The running limit of the {@code limit} variant at {@code threads} handler threads: 80 % of
   * them, rounded, at least 1 (13 at 16, 51 at 64).
   *
   * @throws IllegalArgumentException naming the value when {@code threads} is not positive
   */
  static int maxRunning(int threads) {
    if (threads < 1) {
      throw new IllegalArgumentException("threads must be positive, but was " + threads);
    }
    return (int) Math.max(1, Math.round(threads * 0.8));
  }

  /**
   * Parses {@code --variants}: some of {@value #ALL_VARIANTS}, separated by commas; plain always
   * runs (the ratios are to it).
   *
   * @throws IllegalArgumentException naming the value when a variant is unknown
   */
  static List<String> variants(String list) {
    List<String> variants = new ArrayList<>(List.of("plain"));
    for (String part : list.split(",")) {
      String variant = part.strip();
      if (!List.of(ALL_VARIANTS.split(",")).contains(variant)) {
        throw new IllegalArgumentException(
            "--variants must be some of " + ALL_VARIANTS + ", but was '" + list + "'");
      }
      if (!variants.contains(variant)) {
        variants.add(variant);
      }
    }
    return variants;
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
