package dev.fencing.benchmarks;

import com.zaxxer.hikari.HikariDataSource;
import dev.fencing.FencedQueue;
import dev.fencing.postgres.PostgresFencing;
import dev.fencing.testkit.db.PostgresFixture;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * One row of {@link ScaleOutBenchmark}: a fresh schema, the queue filled (deep: seeded once;
 * shallow: a {@link DepthProducer} in this JVM), {@code runtimes} runtimes spread evenly over the
 * worker JVMs ({@link ScaleOutWorkerMain}), directly or through a {@link BenchBouncer}; the
 * database watched by a {@link PgObserver} over the measured window.
 */
final class ScaleOutRun {

  private static final String QUEUE = "bench";

  private ScaleOutRun() {}

  /** Runs {@code point} as {@code s} says; see the class comment. */
  static ScaleOutRow run(PostgresFixture.Database db, ScaleOutSettings s, ScaleOutPoint point)
      throws Exception {
    String schema = "bench_scale_" + point.engine();
    BenchDatabase.freshQueueSchema(db, schema, ScaleOutPoint.engine(point.engine()));
    int jvms = Math.min(s.jvms(), point.runtimes());
    try (HikariDataSource ds = BenchDatabase.pool(db, 2);
        HikariDataSource observed = BenchDatabase.pool(db, 1)) {
      FencedQueue queue =
          PostgresFencing.builder(ds)
              .schema(schema)
              .engine(ScaleOutPoint.engine(point.engine()))
              .install(false)
              .build()
              .queue();
      if (point.deep()) {
        tables(point).topUp(ds, schema, QUEUE, s.deep());
      } else {
        for (int left = s.depth(); left > 0; left -= 1_000) {
          queue.enqueueAll(QUEUE, Collections.nCopies(Math.min(1_000, left), "{}"));
        }
      }
      BenchBouncer bouncer =
          point.bouncer()
              ? BenchBouncer.start(db, s.bouncerPool(), point.runtimes() * s.pool() + 50)
              : null;
      try (WorkerProcesses workers = new WorkerProcesses();
          DepthProducer producer =
              point.deep() ? null : DepthProducer.start(queue, QUEUE, s.depth())) {
        PostgresFixture.Database through = bouncer == null ? db : bouncer.database();
        for (int j = 0; j < jvms; j++) {
          int here = point.runtimes() / jvms + (j < point.runtimes() % jvms ? 1 : 0);
          workers.start(
              ScaleOutWorkerMain.class,
              s.quick() ? List.of() : WorkerProcesses.SERVICE_JVM,
              args(s, point, through, schema, j, here));
        }
        workers.go();
        Thread.sleep(s.warmupMillis());
        long bouncerCpu = bouncer == null ? -1 : bouncer.cpuNanos();
        PgObserver.Window pg;
        DepthProducer.Depths depths = DepthProducer.Depths.NONE;
        try (PgObserver observer = PgObserver.start(observed)) {
          if (producer != null) {
            producer.openWindow();
          }
          Thread.sleep(s.millis());
          pg = observer.stop();
          if (producer != null) {
            depths = producer.closeWindow();
          }
        }
        if (bouncer != null) {
          bouncerCpu = bouncer.cpuNanos() - bouncerCpu;
        }
        long pending = queue.depth(QUEUE).pending();
        long[] sum = new long[6];
        for (String line : workers.await("done")) {
          String[] done = line.trim().split(" ");
          for (int i = 0; i < sum.length; i++) {
            sum[i] += Long.parseLong(done[i + 1]);
          }
        }
        LatencyRecorder claims = new LatencyRecorder();
        for (String line : workers.await("claims")) {
          String[] micros = line.trim().split(" ");
          for (int i = 1; i < micros.length; i++) {
            claims.record(Long.parseLong(micros[i]) * 1_000);
          }
        }
        return new ScaleOutRow(
            point,
            jvms,
            s.millis(),
            sum[0],
            sum[1],
            sum[2],
            sum[5],
            sum[3],
            sum[4],
            bouncerCpu,
            claims.percentileMillis(50),
            claims.percentileMillis(99),
            pending,
            depths,
            pg);
      } finally {
        if (bouncer != null) {
          bouncer.close();
        }
      }
    }
  }

  private static List<String> args(
      ScaleOutSettings s,
      ScaleOutPoint point,
      PostgresFixture.Database through,
      String schema,
      int jvm,
      int runtimes) {
    List<String> args = new ArrayList<>();
    args.addAll(
        List.of(
            "--url",
            through.jdbcUrl(),
            "--user",
            through.user(),
            "--password",
            through.password(),
            "--schema",
            schema,
            "--queue",
            QUEUE,
            "--owner",
            "jvm" + jvm,
            "--engine",
            point.engine(),
            // LISTEN needs a session, which a transaction pooler does not keep (docs/HA.md)
            "--notifications",
            point.bouncer() ? "off" : "on"));
    args.addAll(
        List.of(
            "--runtimes",
            Integer.toString(runtimes),
            "--threads",
            Integer.toString(s.threads()),
            "--pool",
            Integer.toString(s.pool()),
            "--prefetch",
            Integer.toString(s.prefetch()),
            "--commit-delay-ms",
            Integer.toString(s.commitDelayMillis()),
            "--warmup-ms",
            Long.toString(s.warmupMillis()),
            "--millis",
            Long.toString(s.millis())));
    return args;
  }

  private static AgedTables tables(ScaleOutPoint point) {
    return point.engine().equals("append")
        ? new AppendOnlyTables(RetentionSettings.parse(new String[] {"--engine", "append"}))
        : new UpdateInPlaceTables();
  }
}
