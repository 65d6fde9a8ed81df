package dev.fencing.benchmarks;

import java.util.List;

/**
 * The arguments of {@link ScaleOutBenchmark}.
 *
 * @param runtimes the runtime counts of the rows, each on one queue
 * @param jvms the most worker JVMs a row spreads its runtimes over
 * @param threads handler threads per runtime
 * @param pool connections per runtime (its own HikariCP pool)
 * @param prefetch the runtime's prefetch, or 0 for its default (as many as {@code threads})
 * @param commitDelayMillis the runtime's {@code maxCommitDelay} in ms, or -1 for its default
 * @param depth the shallow rows' depth target: jobs enqueued and not yet claimed
 * @param deep jobs seeded for each deep row, 0 for no deep rows
 * @param warmupMillis work before each measured window
 * @param millis each measured window
 * @param engines "update", "append" or both, alternating at each row
 * @param bouncer whether the largest row runs again through PgBouncer
 * @param bouncerPool PgBouncer's server connections ({@code default_pool_size})
 */
record ScaleOutSettings(
    boolean quick,
    List<Integer> runtimes,
    int jvms,
    int threads,
    int pool,
    int prefetch,
    int commitDelayMillis,
    int depth,
    int deep,
    long warmupMillis,
    long millis,
    List<String> engines,
    boolean bouncer,
    int bouncerPool) {

  /**
   * Parses the options; {@code --quick} is the smoke form (1 and 4 runtimes over 2 JVMs, shallow
   * only, the default engine, 0.5 s warm-up, 1 s measured, no PgBouncer, small test JVMs).
   *
   * @throws IllegalArgumentException naming the option and its value when one is out of range
   */
  static ScaleOutSettings parse(String[] args) {
    boolean quick = List.of(args).contains("--quick");
    List<Integer> runtimes =
        EngineBenchmark.workers(Args.stringArg(args, "--runtimes", quick ? "1,4" : "1,4,16,64"));
    List<String> engines =
        List.of(Args.stringArg(args, "--engines", quick ? "append" : "append,update").split(","));
    for (String engine : engines) {
      if (!engine.equals("update") && !engine.equals("append")) {
        throw new IllegalArgumentException(
            "--engines must be update, append or both, but was '"
                + String.join(",", engines)
                + "'");
      }
    }
    String bouncer = Args.stringArg(args, "--pgbouncer", quick ? "off" : "on");
    if (!bouncer.equals("on") && !bouncer.equals("off")) {
      throw new IllegalArgumentException(
          "--pgbouncer must be on or off, but was '" + bouncer + "'");
    }
    long warmup = Args.intArg(args, "--warmup-ms", quick ? 500 : 3_000);
    // 10 s windows moved a row by up to 0.2 of its best between two runs here (BENCHMARKS.md)
    long millis = Args.intArg(args, "--millis", quick ? 1_000 : 20_000);
    // deep: enough that the fastest rows seen here (about 15,000 jobs/s) never run dry
    int deep =
        Args.intArg(
            args, "--deep", quick ? 0 : (int) Math.max(100_000, (warmup + millis + 5_000) * 25));
    return new ScaleOutSettings(
        quick,
        runtimes,
        positive("--jvms", Args.intArg(args, "--jvms", quick ? 2 : 4)),
        positive("--threads", Args.intArg(args, "--threads", 4)),
        positive("--pool", Args.intArg(args, "--pool", 3)),
        Args.intArg(args, "--prefetch", 0),
        Args.intArg(args, "--commit-delay-ms", -1),
        positive("--depth", Args.intArg(args, "--depth", quick ? 500 : 4_000)),
        deep,
        warmup,
        millis,
        engines,
        bouncer.equals("on"),
        positive("--pgbouncer-pool", Args.intArg(args, "--pgbouncer-pool", 16)));
  }

  private static int positive(String name, int value) {
    if (value < 1) {
      throw new IllegalArgumentException(name + " must be at least 1, but was " + value);
    }
    return value;
  }
}
