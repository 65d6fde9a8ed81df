package dev.fencing.benchmarks;

import java.util.List;

/**
 * The arguments of {@code RetentionBenchmark}.
 *
 * @param claimBatch append-only aging: jobs per claim row
 * @param slice append-only aging: the last jobs of a step, pushed through the real API
 */
record RetentionSettings(
    boolean quick,
    boolean append,
    long[] sizes,
    int seconds,
    int warmupMillis,
    int threads,
    int backlog,
    int chunk,
    int batch,
    int claimBatch,
    int slice,
    int catchUpSeconds,
    String out) {

  static RetentionSettings parse(String[] args) {
    boolean quick = List.of(args).contains("--quick");
    String engine = Args.stringArg(args, "--engine", "update");
    if (!engine.equals("update") && !engine.equals("append")) {
      throw new IllegalArgumentException("--engine must be update or append, but was " + engine);
    }
    String sizes = Args.stringArg(args, "--sizes", quick ? "10000,40000" : "1000000,5000000");
    long[] parsed =
        java.util.Arrays.stream(sizes.split(","))
            .mapToLong(s -> Long.parseLong(s.trim()))
            .toArray();
    for (int i = 0; i < parsed.length; i++) {
      if (parsed[i] <= 0 || (i > 0 && parsed[i] <= parsed[i - 1])) {
        throw new IllegalArgumentException("--sizes must grow and be > 0, but was " + sizes);
      }
    }
    return new RetentionSettings(
        quick,
        engine.equals("append"),
        parsed,
        Args.intArg(args, "--seconds", quick ? 1 : 10),
        quick ? 300 : 2_000,
        Args.intArg(args, "--threads", 2),
        Args.intArg(args, "--backlog", quick ? 5_000 : 50_000),
        Args.intArg(args, "--chunk", quick ? 10_000 : 50_000),
        Args.intArg(args, "--batch", 1_000),
        Args.intArg(args, "--claim-batch", 10),
        Args.intArg(args, "--slice", quick ? 1_000 : 50_000),
        quick ? 60 : 600,
        Args.stringArg(args, "--out", null));
  }
}
