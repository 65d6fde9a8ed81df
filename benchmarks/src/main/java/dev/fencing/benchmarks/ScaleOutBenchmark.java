package dev.fencing.benchmarks;

import dev.fencing.testkit.db.PostgresFixture;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Many {@code FencedWorkers} on one queue, as a deployment of many pods runs them (issue 33): rows
 * of 1, 4, 16 and 64 runtimes, each with a small pool of its own, spread over several worker JVMs
 * ({@link ScaleOutRun}); a shallow queue kept at a depth target and a deep one seeded before the
 * row; both engines, alternating at each row in one run; the largest row again through PgBouncer in
 * transaction mode. Per row: jobs/s, PostgreSQL and JVM CPU per job, claim p50/p99, lock waits and
 * empty claims ({@link ScaleOutReport}).
 *
 * <p>Prints a Markdown section; {@code --out FILE} also writes it alone, {@code --doc FILE} puts it
 * into FILE in place of the section of the same title (or at its end). {@code --quick} is the smoke
 * form ({@link ScaleOutSettings#parse}); its numbers mean nothing. Nothing here asserts a time. The
 * CPU of the database's backends is read from /proc: only for a server on this machine.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar dev.fencing.benchmarks.ScaleOutBenchmark [--quick]
 *   [--runtimes 1,4,16,64] [--jvms 4] [--threads 4] [--pool 3] [--prefetch N] [--commit-delay-ms N] [--depth 4000]
 *   [--deep N] [--warmup-ms 3000] [--millis 10000] [--engines update,append]
 *   [--pgbouncer on|off] [--pgbouncer-pool 16] [--out FILE] [--doc FILE]
 * </pre>
 */
public final class ScaleOutBenchmark {

  static final String TITLE = ScaleOutReport.TITLE;

  private ScaleOutBenchmark() {}

  /** Runs the rows; see the class comment for the arguments. */
  public static void main(String[] args) throws Exception {
    long begin = System.nanoTime();
    ScaleOutSettings s = ScaleOutSettings.parse(args);
    PostgresFixture.Database db = BenchDatabase.database();
    requireConnections(db, s);
    List<ScaleOutRow> rows = new ArrayList<>();
    int point = 0;
    for (boolean deep : s.deep() > 0 ? new boolean[] {false, true} : new boolean[] {false}) {
      List<Integer> counts = new ArrayList<>(s.runtimes());
      for (int runtimes : counts) {
        rows.addAll(pair(db, s, deep, runtimes, false, point++));
      }
      if (s.bouncer()) {
        rows.addAll(pair(db, s, deep, Collections.max(counts), true, point++));
      }
    }
    String section =
        ScaleOutReport.section(
            new ScaleOutReport.Header(
                String.join(" ", args),
                LocalDate.now(ZoneOffset.UTC),
                BenchDatabase.machine(db.dataSource()).strip(),
                EngineBenchmark.cpuModel(),
                (System.nanoTime() - begin) / 60e9),
            s,
            rows);
    Args.report(section, args);
  }

  /**
   * Connections a row takes beyond its runtimes' pools: the producer, the observer, PgBouncer's.
   */
  static final int SPARE_CONNECTIONS = 20;

  /**
   * Refuses to start when the server's {@code max_connections} cannot hold the largest row (its
   * runtimes' pools and {@link #SPARE_CONNECTIONS}), rather than failing in a worker JVM minutes
   * in.
   *
   * @throws IllegalStateException naming the setting, its value and what the run needs
   */
  static void requireConnections(PostgresFixture.Database db, ScaleOutSettings s)
      throws SQLException {
    int needed = Collections.max(s.runtimes()) * s.pool() + SPARE_CONNECTIONS;
    int max;
    try (Connection c = db.dataSource().getConnection();
        Statement st = c.createStatement();
        ResultSet r = st.executeQuery("select current_setting('max_connections')::int")) {
      r.next();
      max = r.getInt(1);
    }
    if (max < needed) {
      throw new IllegalStateException(
          "max_connections is "
              + max
              + ", but the "
              + Collections.max(s.runtimes())
              + "-runtime row needs about "
              + needed
              + " connections ("
              + Collections.max(s.runtimes())
              + " runtimes x --pool "
              + s.pool()
              + " + "
              + SPARE_CONNECTIONS
              + "): set max_connections = "
              + Math.max(300, needed)
              + " (postgresql.conf or a file in conf.d) and restart PostgreSQL, or pass fewer"
              + " --runtimes");
    }
  }

  /** Runs every engine at one point, the order turned round at every other point. */
  private static List<ScaleOutRow> pair(
      PostgresFixture.Database db,
      ScaleOutSettings s,
      boolean deep,
      int runtimes,
      boolean bouncer,
      int point)
      throws Exception {
    List<String> engines = new ArrayList<>(s.engines());
    if (point % 2 == 1) {
      Collections.reverse(engines);
    }
    List<ScaleOutRow> rows = new ArrayList<>();
    for (String engine : engines) {
      ScaleOutPoint p = new ScaleOutPoint(engine, deep, runtimes, bouncer);
      System.err.println("scale-out row: " + p);
      ScaleOutRow row = ScaleOutRun.run(db, s, p);
      System.err.printf(
          "  %,.0f jobs/s, %,d empty claims, claim p99 %.1f ms%n",
          row.jobsPerSecond(), row.emptyClaims(), row.claimP99());
      rows.add(row);
    }
    return rows;
  }
}
