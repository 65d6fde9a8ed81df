package dev.fencing.benchmarks;

import com.zaxxer.hikari.HikariDataSource;
import dev.fencing.benchmarks.Report.Peer;
import dev.fencing.benchmarks.Report.Throughput;
import dev.fencing.testkit.db.PostgresFixture;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * Runs every benchmark in one go and writes the report: end-to-end throughput (library, raw SQL,
 * worker pool) across threads and batch sizes, db-scheduler at equal threads, several processes on
 * one queue, and lease-length tuning.
 *
 * <pre>
 * java -jar benchmarks/target/benchmarks.jar [--quick] [--out docs/BENCHMARKS.md]
 *     [--leases 1s,5s,30s] [--pauses p50=20ms,p99=800ms,max=2s]
 * </pre>
 *
 * PostgreSQL: {@code FENCING_JDBC_URL} if set, else an embedded server. {@code --quick} is the
 * smoke run CI makes: one short iteration per benchmark on a small queue; its numbers mean nothing.
 */
public final class BenchmarksMain {

  private BenchmarksMain() {}

  public static void main(String[] args) throws Exception {
    Settings settings = Settings.parse(args);
    String report = run(settings);
    Files.createDirectories(settings.out().toAbsolutePath().getParent());
    Files.writeString(settings.out(), report + OtherSections.kept(settings.out(), report));
    System.out.println(report);
    System.out.println("written to " + settings.out());
  }

  /** Runs everything {@code settings} asks for and returns the report, Markdown. */
  static String run(Settings settings) throws Exception {
    PostgresFixture.Database db = BenchDatabase.database();
    StringBuilder md = new StringBuilder();
    md.append("# Benchmarks\n\n");
    md.append(machine(db, settings));
    List<Throughput> rows = throughput(settings);
    md.append(Report.throughputTable(rows));
    List<Peer> peers = dbScheduler(db, settings, rows);
    md.append(Report.peerTable(peers));
    List<ProcessScaling.Row> processes = processes(db, settings);
    md.append(Report.processTable(processes));
    md.append(Report.targets(rows, peers, processes));
    md.append(leaseTuning(db, settings));
    return md.toString();
  }

  private static List<Throughput> throughput(Settings settings)
      throws RunnerException, IOException {
    List<Throughput> rows = new ArrayList<>();
    for (int[] config : settings.matrix()) {
      String mode = Settings.MODES[config[0]];
      int batch = config[1];
      int threads = config[2];
      ChainedOptionsBuilder options =
          new OptionsBuilder()
              .include(ThroughputBenchmark.class.getName() + ".endToEnd")
              .param("mode", mode)
              .param("batch", Integer.toString(batch))
              .param("depth", Integer.toString(settings.depth()))
              .threads(threads)
              .forks(settings.quick() ? 0 : 1)
              .warmupIterations(settings.quick() ? 0 : 1)
              .warmupTime(TimeValue.seconds(3))
              .measurementIterations(settings.quick() ? 1 : 3)
              .measurementTime(TimeValue.seconds(settings.quick() ? 1 : 5))
              .jvmArgsAppend(
                  "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                  "-Dbench.out=" + System.getProperty("bench.out", "target/bench"))
              .shouldFailOnError(true);
      RunResult result = new Runner(options.build()).runSingle();
      Result<?> jobs = result.getSecondaryResults().get("jobs");
      String label = mode + "-b" + batch + "-t" + threads;
      String[] latency = Files.readString(ThroughputBenchmark.latencyFile(label)).trim().split(" ");
      rows.add(new Throughput(mode, batch, threads, jobs.getScore(), latency[0], latency[1]));
    }
    return rows;
  }

  private static List<Peer> dbScheduler(
      PostgresFixture.Database db, Settings settings, List<Throughput> rows) throws Exception {
    List<Peer> peers = new ArrayList<>();
    for (int threads : settings.peerThreads()) {
      try (HikariDataSource ds = BenchDatabase.pool(db, threads + 4)) {
        DbSchedulerPeer.Result result =
            DbSchedulerPeer.run(ds, "bench_db_scheduler", threads, settings.peerTasks());
        double ours =
            rows.stream()
                .filter(r -> r.mode().equals("runtime") && r.threads() == threads)
                .mapToDouble(Throughput::jobsPerSecond)
                .max()
                .orElse(Double.NaN);
        peers.add(new Peer(threads, result.jobsPerSecond(), ours));
      }
    }
    return peers;
  }

  private static List<ProcessScaling.Row> processes(PostgresFixture.Database db, Settings settings)
      throws IOException, InterruptedException, java.sql.SQLException {
    List<ProcessScaling.Row> rows = new ArrayList<>();
    for (int processes : settings.processCounts()) {
      rows.add(
          ProcessScaling.run(
              db,
              processes,
              settings.threadsPerProcess(),
              100,
              settings.processMillis(),
              settings.processWarmupMillis()));
    }
    return rows;
  }

  private static String leaseTuning(PostgresFixture.Database db, Settings settings) {
    try (HikariDataSource ds = BenchDatabase.pool(db, 8)) {
      return LeaseTuning.run(
          ds,
          db,
          settings.leases(),
          LeaseTuningArguments.pauses(settings.pauses()),
          settings.quick());
    }
  }

  private static String machine(PostgresFixture.Database db, Settings settings)
      throws SQLException, IOException {
    String version;
    try (Connection c = db.dataSource().getConnection();
        ResultSet r = c.createStatement().executeQuery("show server_version")) {
      r.next();
      version = r.getString(1);
    }
    String cpu =
        Files.readAllLines(Path.of("/proc/cpuinfo")).stream()
            .filter(l -> l.startsWith("model name"))
            .findFirst()
            .map(l -> l.substring(l.indexOf(':') + 1).trim())
            .orElse("unknown CPU");
    return String.format(
        Locale.ROOT,
        "Measured %s with `java -jar benchmarks/target/benchmarks.jar%s`.%n%n"
            + "- Machine: %d cores (%s), %d GiB of memory; PostgreSQL and the JVMs share the cores.%n"
            + "- PostgreSQL %s (%s), stock settings, `synchronous_commit` on.%n"
            + "- Java %s. JMH: %s.%n"
            + "- Every job: claim (epoch bumped, lease from `now()`), no-op handler, owner+epoch"
            + " compare-and-set completion.%n%n",
        LocalDate.now(),
        settings.quick() ? " --quick" : "",
        Runtime.getRuntime().availableProcessors(),
        cpu,
        Math.round(
            ((com.sun.management.OperatingSystemMXBean)
                        java.lang.management.ManagementFactory.getOperatingSystemMXBean())
                    .getTotalMemorySize()
                / (1024.0 * 1024 * 1024)),
        version,
        db.source(),
        Runtime.version(),
        settings.quick()
            ? "smoke run, 1 iteration of 1 s, no fork; the numbers mean nothing"
            : "1 fork, 1 warm-up iteration of 3 s, 3 measured iterations of 5 s, queue topped up to twice a depth of "
                + settings.depth());
  }

  /** Command-line settings. */
  record Settings(boolean quick, Path out, String leasesText, String pauses) {

    static final String[] MODES = {"library", "raw", "pool", "runtime"};

    static Settings parse(String[] args) {
      boolean quick = false;
      Path out = Path.of("docs", "BENCHMARKS.md");
      String leases = "1s,5s,30s";
      String pauses = "p50=20ms,p99=800ms,max=2s";
      for (int i = 0; i < args.length; i++) {
        switch (args[i]) {
          case "--quick" -> quick = true;
          case "--out" -> out = Path.of(value(args, ++i, "--out"));
          case "--leases" -> leases = value(args, ++i, "--leases");
          case "--pauses" -> pauses = value(args, ++i, "--pauses");
          default ->
              throw new IllegalArgumentException(
                  "arguments must be --quick, --out FILE, --leases LIST or --pauses LIST, but"
                      + " found '"
                      + args[i]
                      + "'");
        }
      }
      return new Settings(quick, out, leases, pauses);
    }

    private static String value(String[] args, int i, String option) {
      if (i >= args.length) {
        throw new IllegalArgumentException(option + " needs a value");
      }
      return args[i];
    }

    List<Duration> leases() {
      List<Duration> list = new ArrayList<>();
      for (String part : leasesText.split(",")) {
        list.add(LeaseTuningArguments.duration("--leases", part.trim()));
      }
      return list;
    }

    int depth() {
      return quick ? 2_000 : 100_000;
    }

    /** {mode index, batch, threads} per JMH run. */
    List<int[]> matrix() {
      List<int[]> m = new ArrayList<>();
      if (quick) {
        m.add(new int[] {2, 10, 2});
        m.add(new int[] {3, 10, 2});
        m.add(new int[] {0, 1, 1});
        m.add(new int[] {1, 1, 1});
        m.add(new int[] {0, 10, 2});
        return m;
      }
      for (int t : new int[] {1, 2, 4, 8, 16, 32}) {
        m.add(new int[] {2, 100, t});
        m.add(new int[] {3, 100, t});
      }
      m.add(new int[] {2, 10, 8});
      m.add(new int[] {3, 10, 8});
      for (int t : new int[] {1, 4, 16, 32}) {
        m.add(new int[] {0, 1, t});
        m.add(new int[] {1, 1, t});
      }
      for (int b : new int[] {10, 100}) {
        m.add(new int[] {0, b, 8});
        m.add(new int[] {1, b, 8});
      }
      m.add(new int[] {0, 100, 1});
      m.add(new int[] {1, 100, 1});
      return m;
    }

    List<Integer> peerThreads() {
      return quick ? List.of(2) : List.of(1, 8, 16);
    }

    int peerTasks() {
      return quick ? 200 : 20_000;
    }

    List<Integer> processCounts() {
      return quick ? List.of(1, 2) : List.of(1, 2, 4);
    }

    int threadsPerProcess() {
      return quick ? 2 : 4;
    }

    long processMillis() {
      return quick ? 1_000 : 10_000;
    }

    /**
     * Work before the measured window. Every worker JVM compiles the same code: with a short
     * warm-up four JVMs on two cores were still compiling through the window, which is a cost per
     * process at start, not per job.
     */
    long processWarmupMillis() {
      return quick ? 300 : 40_000;
    }
  }
}
