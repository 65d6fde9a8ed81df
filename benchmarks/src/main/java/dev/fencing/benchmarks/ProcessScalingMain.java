package dev.fencing.benchmarks;

import dev.fencing.testkit.db.PostgresFixture;
import java.util.ArrayList;
import java.util.List;

/**
 * The process-scaling rows alone, interleaved over rounds so that every configuration sees the same
 * machine: {@code java -cp benchmarks/target/benchmarks.jar
 * dev.fencing.benchmarks.ProcessScalingMain [--rows 1x4,4x1,4x4] [--rounds 2] [--millis 10000]
 * [--warmup 2000] [--batch 100]}. Rows are processes x threads each. PostgreSQL: {@code
 * FENCING_JDBC_URL} if set, else an embedded server; the CPU of the database's backends is read
 * from /proc, so it is only reported for a server on this machine.
 */
public final class ProcessScalingMain {

  private ProcessScalingMain() {}

  public static void main(String[] args) throws Exception {
    List<int[]> configs = configs("1x4,4x1,4x4");
    int rounds = 2;
    long millis = 10_000;
    long warmup = 2_000;
    int batch = 100;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--rows" -> configs = configs(args[++i]);
        case "--rounds" -> rounds = Integer.parseInt(args[++i]);
        case "--millis" -> millis = Long.parseLong(args[++i]);
        case "--warmup" -> warmup = Long.parseLong(args[++i]);
        case "--batch" -> batch = Integer.parseInt(args[++i]);
        default ->
            throw new IllegalArgumentException(
                "arguments must be --rows, --rounds, --millis, --warmup or --batch, but found '"
                    + args[i]
                    + "'");
      }
    }
    PostgresFixture.Database db = BenchDatabase.database();
    List<ProcessScaling.Row> rows = new ArrayList<>();
    for (int round = 0; round < rounds; round++) {
      for (int[] c : configs) {
        rows.add(ProcessScaling.run(db, c[0], c[1], batch, millis, warmup));
        System.out.println(Report.processRows(rows.subList(rows.size() - 1, rows.size())));
      }
    }
    System.out.println(Report.processRows(rows));
    System.out.println(Report.cpuBound(rows));
  }

  /** Parses "1x4,4x1" into {processes, threads} pairs. */
  static List<int[]> configs(String text) {
    List<int[]> configs = new ArrayList<>();
    for (String part : text.split(",")) {
      String[] pt = part.trim().split("x");
      if (pt.length != 2) {
        throw new IllegalArgumentException(
            "rows must look like 1x4,4x1 (processes x threads), but found '" + part + "'");
      }
      configs.add(new int[] {Integer.parseInt(pt[0]), Integer.parseInt(pt[1])});
    }
    return configs;
  }
}
